// `hamgan bench checkpoint`: write and verified-read time of a checkpoint of a given size.
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "gan/checkpoint/checkpoint_bench.h"

namespace hamgan::cli {
static CommandRegistrar bench_checkpoint_registrar("bench.checkpoint", [](CLI::App& root) {
  using C = CheckpointBenchConfig;
  auto cfg = std::make_shared<C>();
  auto* sub = root.get_subcommand("bench")->add_subcommand(
      "checkpoint", "Checkpoint write and verified read times (SHA-256 integrity check) at a given size");
  add_config_file_option(sub);
  const FieldTable<C> fields = {
      member_field(int_field("mib", "Checkpoint size in MiB (1024: an ImageNet-128 training state)",
                             between(16, 65536)),
                   &C::mib),
      member_field(string_field("dir", "Folder for the file (default: the system's temporary folder)"), &C::dir),
      member_field(string_field("json", "Write the result as JSON to this file"), &C::json),
  };
  add_field_options(sub, fields, *cfg, "Options");
  on_run(sub, [cfg] { bench_checkpoint(*cfg); });
});
}  // namespace hamgan::cli
