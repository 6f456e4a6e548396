// `hamgan bench attention`: timing of SA and the two YLG kernels.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "modules/attention_bench.h"

namespace hamgan::cli {
static CommandRegistrar bench_attention_registrar("bench.attention", [](CLI::App& root) {
  auto cfg = std::make_shared<AttentionBenchConfig>();
  auto* sub = root.get_subcommand("bench")->add_subcommand(
      "attention", "Time SA and YLG attention (dense-masked vs gathered keys) forward and backward");
  add_config_file_option(sub);
  sub->add_option("--batch", cfg->batch, "Images per call")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--channels", cfg->channels, "Channels C at the block (multiple of 64)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_option("--size", cfg->size, "Feature-map side H = W (even)")->capture_default_str()->check(CLI::Range(2, 256));
  sub->add_option("--iters", cfg->iters, "Timed calls per variant")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--device", cfg->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  sub->add_option("--threads", cfg->threads, "CPU threads for LibTorch (0 = its default)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->callback([cfg] { run_attention_bench(*cfg, std::cout); });
});
}  // namespace hamgan::cli
