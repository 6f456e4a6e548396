// Fields as TOML lines and TOML values as field text (see config_fields.h).
#include "core/config_fields.h"
#include "core/errors.h"

namespace hamgan {

std::string toml_line(const FieldSpec& spec, const std::string& value) {
  if (spec.type == FieldType::kList) {
    std::string items;
    for (const auto& x : split_list(value)) items += (items.empty() ? "\"" : ", \"") + x + "\"";
    return spec.key + " = [" + items + "]\n";
  }
  if (spec.type != FieldType::kString && spec.type != FieldType::kChoice) return spec.key + " = " + value + "\n";
  std::string quoted;
  for (char c : value) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return spec.key + " = \"" + quoted + "\"\n";
}

std::string single_text_value(const std::string& section, const ConfigEntry& item, bool list) {
  const std::string key = item.table.empty() ? item.key : item.table + "." + item.key;
  if (list) return join_list(item.values);
  if (item.values.empty()) throw ConfigError(section + ": " + key + " is an empty array; give a value");
  if (item.values.size() > 1)
    throw ConfigError(section + ": " + key + " takes one value, got an array of " + std::to_string(item.values.size()));
  return item.values.front();
}

}  // namespace hamgan
