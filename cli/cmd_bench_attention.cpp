// `hamgan bench attention`: timing of SA and the two YLG kernels.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "modules/attention_bench.h"

namespace hamgan::cli {
static CommandRegistrar bench_attention_registrar("bench.attention", [](CLI::App& root) {
  using C = AttentionBenchConfig;
  auto cfg = std::make_shared<C>();
  auto* sub = root.get_subcommand("bench")->add_subcommand(
      "attention", "Time SA and YLG attention (dense-masked vs gathered keys) forward and backward");
  add_config_file_option(sub);
  const FieldTable<C> fields = {
      member_field(int_field("batch", "Images per call", at_least(1)), &C::batch),
      member_field(int_field("channels", "Channels C at the block (multiple of 64)", at_least(1)), &C::channels),
      member_field(int_field("size", "Feature-map side H = W (even)", between(2, 256)), &C::size),
      member_field(int_field("iters", "Timed calls per variant", at_least(1)), &C::iters),
      member_field(string_field("device", "auto, cpu, cuda or cuda:N"), &C::device),
      member_field(int_field("threads", "CPU threads for LibTorch (0 = its default)", at_least(0)), &C::threads),
  };
  add_field_options(sub, fields, *cfg, "Options");
  on_run(sub, [cfg] { run_attention_bench(*cfg, std::cout); });
});
}  // namespace hamgan::cli
