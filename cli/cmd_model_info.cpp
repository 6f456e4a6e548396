// `hamgan model-info`: parameter counts and feature shapes of G and D, or the key tables as JSON.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "cli/model_options.h"
#include "core/errors.h"
#include "gan/model/model_fields_json.h"
#include "gan/model/model_info.h"

namespace hamgan::cli {

static CommandRegistrar model_info_registrar("model-info", [](CLI::App& root) {
  auto* sub = root.add_subcommand("model-info", "Parameter counts per part and feature shapes of G and D");
  add_config_file_option(sub);
  auto cfg = std::make_shared<ModelConfig>();
  auto preset = std::make_shared<std::string>();
  auto fields_json = std::make_shared<bool>(false);
  add_field_option(
      sub, choice_field("preset", model_preset_names(), "Reference 128x128 ImageNet model instead of the model keys"),
      [preset](const std::string& value) { *preset = value; }, "", "Options");
  add_field_option(
      sub,
      flag_field("fields_json", "Print every model key and each registered block's options (type, default, "
                                "choices) as JSON instead; takes no model keys"),
      [fields_json](const std::string& value) { *fields_json = value == "true"; }, "false", "Options",
      /*dashed_alias=*/true);
  command_line_only(sub, "fields_json");  // an experiment file must not turn the report into a dump
  add_model_options(sub, *cfg);
  on_run(sub, [sub, cfg, preset, fields_json] {
    // --preset replaces the model keys; --fields_json describes the tables (defaults included), not a model.
    if (*fields_json || !preset->empty()) {
      const std::string chosen = *fields_json ? "--fields_json" : "--preset " + *preset;
      auto others = model_option_names();
      if (*fields_json) others.push_back("preset");
      for (const auto& name : others)
        if (option_given(sub, name))
          throw ConfigError("model-info: " + chosen + " and --" + name + " cannot be combined; give " +
                            (*fields_json ? "--fields_json alone" : "either a preset or the model keys"));
    }
    if (*fields_json) {
      std::cout << model_fields_json();
      return;
    }
    ModelConfig c = *cfg;
    if (!preset->empty()) c = model_preset(*preset);
    print_model_info(c, model_info(c), std::cout);
  });
});

}  // namespace hamgan::cli
