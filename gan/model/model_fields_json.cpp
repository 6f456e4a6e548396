// The model keys and the block registry as JSON (see model_fields_json.h).
#include "gan/model/model_fields_json.h"

#include <nlohmann/json.hpp>

#include <vector>

#include "core/config_fields.h"
#include "gan/model/model_config.h"
#include "modules/context_block.h"
#include "modules/context_block_options.h"

namespace hamgan {
namespace {

using json = nlohmann::ordered_json;  // keys in the order written, so the output reads like the tables

const char* type_name(FieldType type) {
  switch (type) {
    case FieldType::kInt: return "int";
    case FieldType::kFloat: return "float";
    case FieldType::kBool: return "bool";
    case FieldType::kString: return "string";
    case FieldType::kChoice: return "choice";
    case FieldType::kList: return "list";
  }
  return "string";
}

json field_json(const FieldSpec& spec) {
  json field = {{"name", spec.key}, {"type", type_name(spec.type)}, {"default", spec.default_value}};
  if (!spec.choices.empty()) field["choices"] = spec.choices;
  return field;
}

}  // namespace

std::string model_fields_json() {
  json model = json::array();
  for (const auto& field : model_config_fields()) model.push_back(field_json(field.spec));

  json blocks = json::array();
  for (const std::string& name : context_block_names()) {
    json options = json::array();
    for (const auto& spec : context_block_option_fields(name)) options.push_back(field_json(spec));
    blocks.push_back({{"name", name}, {"options", options}});
  }

  json out = {{"model_fields", model}, {"blocks", blocks}};
  return out.dump(2) + "\n";
}

}  // namespace hamgan
