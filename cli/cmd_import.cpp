// `hamgan import G.safetensors --out RUN [--config F.toml]`: a generator from a
// safetensors file made into a run directory (gan/interop/import.h). The model
// and train keys are train's own rows, so any experiment file serves as --config.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "cli/model_options.h"
#include "gan/interop/import.h"

namespace hamgan::cli {

static CommandRegistrar import_registrar("import", [](CLI::App& root) {
  auto* sub = root.add_subcommand("import", "Make a run directory from a generator in safetensors (hamgan export's "
                                            "layout), to sample, score or fine-tune with train --resume");
  add_config_file_option(sub);
  auto c = std::make_shared<ImportConfig>();
  add_argument(sub, "FILE", c->file, "The .safetensors file (G.* tensors, optionally D.*)", true);
  add_field_option(
      sub, required(string_field("out", "Run directory to create (must not exist, or be empty)")),
      [c](const std::string& value) { c->out = value; }, "", "Options");
  add_model_options(sub, c->train.model);
  // --out names the directory; a run's config.toml given as --config keeps its old run_dir out of the way.
  FieldTable<TrainConfig> train_keys;
  for (const auto& f : train_config_fields())
    if (f.spec.key != "run_dir") train_keys.push_back(f);
  add_field_options(sub, train_keys, c->train, "Training (recorded in the run's config.toml)");
  on_run(sub, [c, sub] {
    for (const auto& key : model_option_names()) c->model_given |= option_given(sub, key);
    std::cout << import_generator(*c) << "\n";
  });
});

}  // namespace hamgan::cli
