// `hamgan model-info`: parameter counts and feature shapes of G and D.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "cli/model_options.h"
#include "core/errors.h"
#include "gan/model/model_info.h"

namespace hamgan::cli {

static CommandRegistrar model_info_registrar("model-info", [](CLI::App& root) {
  auto* sub = root.add_subcommand("model-info", "Parameter counts per part and feature shapes of G and D");
  add_config_file_option(sub);
  auto cfg = std::make_shared<ModelConfig>();
  auto preset = std::make_shared<std::string>();
  add_field_option(
      sub, choice_field("preset", model_preset_names(), "Reference 128x128 ImageNet model instead of the model keys"),
      [preset](const std::string& value) { *preset = value; }, "", "Options");
  add_model_options(sub, *cfg);
  on_run(sub, [sub, cfg, preset] {
    ModelConfig c = *cfg;
    if (!preset->empty()) {
      for (const auto& name : model_option_names())
        if (option_given(sub, name))
          throw ConfigError("model-info: --preset " + *preset + " and --" + name +
                            " cannot be combined; give either a preset or the model keys");
      c = model_preset(*preset);
    }
    print_model_info(c, model_info(c), std::cout);
  });
});

}  // namespace hamgan::cli
