// `hamgan export RUN|CKPT --out G.safetensors`: a trained generator for Python
// and other tools (gan/interop/export.h, docs/interop.md).
#include <iostream>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/field_options.h"
#include "gan/interop/export.h"
#include "gan/interop/hub_export.h"

namespace hamgan::cli {
namespace {

FieldTable<ExportConfig> export_fields() {
  using C = ExportConfig;
  return {
      member_field(choice_field("which", {"latest", "best"},
                                "With a run directory: its latest checkpoint, or the best one kept by evaluation"),
                   &C::which),
      member_field(choice_field("weights", {"ema", "raw"},
                                "The EMA generator (as hamgan sample uses; the default when the run kept one) or "
                                "the raw one"),
                   &C::weights),
      member_field(flag_field("with_d", "Also write the discriminator (D.* tensors)"), &C::with_d),
      member_field(string_field("out", "FILE.safetensors to write"), &C::out),
      member_field(string_field("hub", "Instead of --out: a folder in the Hugging Face Hub's model layout (model."
                                       "safetensors, config.json, a model card from the run, its logs and grid)"),
                   &C::hub),
      member_field(string_field("license", "With --hub: the card's license, an SPDX id (mit, apache-2.0, ...)"),
                   &C::license),
      member_field(string_field("class_names", "With --hub: a file of class names, one per line in label order "
                                               "(Fashion-MNIST's are known)"),
                   &C::class_names),
      member_field(int_field("seed", "Seed of the standing BN statistics (as hamgan sample --seed)", at_least(0)),
                   &C::seed),
      member_field(int_field("standing_stats", "Batches of 64 to recompute G's BN statistics over (0: stored moving "
                                               "averages), as hamgan sample",
                             at_least(0)),
                   &C::standing_stats),
      member_field(string_field("device", "auto | cpu | cuda | cuda:N (where the standing statistics are computed)"),
                   &C::device),
  };
}

}  // namespace

static CommandRegistrar export_registrar("export", [](CLI::App& root) {
  auto* sub = root.add_subcommand("export", "Write a checkpoint's generator (and optionally D) as safetensors, for "
                                            "Python (pip install ./python; hamgan.load_generator) and other tools");
  add_config_file_option(sub);
  auto cfg = std::make_shared<ExportConfig>();
  add_argument(sub, "CHECKPOINT", cfg->checkpoint, "Checkpoint file or run directory", true);
  add_field_options(sub, export_fields(), *cfg, "Options");
  on_run(sub, [cfg] {
    // Before any output: a refusal prints only its error line.
    const std::string done = cfg->hub.empty() ? run_export(*cfg) : run_hub_export(*cfg);
    std::cout << "export: " << done << "\n";
  });
});

}  // namespace hamgan::cli
