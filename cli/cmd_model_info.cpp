// `hamgan model-info`: parameter counts and feature shapes of G and D.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/model_options.h"
#include "core/errors.h"
#include "gan/model/model_info.h"

namespace hamgan::cli {

static CommandRegistrar model_info_registrar("model-info", [](CLI::App& root) {
  auto* sub = root.add_subcommand("model-info", "Parameter counts per part and feature shapes of G and D");
  add_config_file_option(sub);
  auto cfg = std::make_shared<ModelConfig>();
  auto preset = std::make_shared<std::string>();
  sub->add_option("--preset", *preset, "Reference 128x128 ImageNet model instead of the model keys")
      ->check(CLI::IsMember(model_preset_names()))->capture_default_str();
  add_model_options(sub, *cfg);
  sub->callback([sub, cfg, preset] {
    ModelConfig c = *cfg;
    if (!preset->empty()) {
      for (const auto& name : model_option_names())
        if (sub->get_option("--" + name)->count() > 0)
          throw ConfigError("model-info: --preset " + *preset + " and --" + name +
                            " cannot be combined; give either a preset or the model keys");
      c = model_preset(*preset);
    }
    print_model_info(c, model_info(c), std::cout);
  });
});

}  // namespace hamgan::cli
