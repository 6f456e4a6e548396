#include "cli/model_options.h"

#include "cli/field_options.h"

namespace hamgan::cli {

std::vector<std::string> model_option_names() {
  std::vector<std::string> names;
  for (const auto& f : model_config_fields()) names.push_back(f.spec.key);
  return names;
}

void add_model_options(CLI::App* app, hamgan::ModelConfig& cfg) {
  add_field_options(app, model_config_fields(), cfg, "Model");
}

}  // namespace hamgan::cli
