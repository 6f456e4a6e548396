#pragma once
// CLI11 options generated from a field table (core/config_fields.h): one
// `--key VALUE` option per field, checked by the field's own check, with the
// help text and the current value as default. Keys double as --config TOML keys.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/config_fields.h"

namespace hamgan::cli {

// What is wrong with `value` for `spec` and the fix, value first ("" when fine; `value`
// becomes canonical): "-16 is out of range; it must be >= 1". The prefix "--key: " (or
// "FILE:LINE: key: ") is added by the caller.
inline std::string field_error(const FieldSpec& spec, std::string& value) {
  const std::string given = value;
  FieldSpec type_only = spec;
  type_only.check = {};
  if (const std::string problem = field_problem(type_only, value); !problem.empty()) {
    if (spec.type == FieldType::kList) return "'" + given + "' " + problem;
    const std::string example = spec.default_value.empty() ? "" : " like " + spec.default_value + " (the default)";
    switch (spec.type) {
      case FieldType::kInt: return "'" + given + "' is not an integer; it must be a whole number" + example;
      case FieldType::kFloat: return "'" + given + "' is not a finite number; it must be a number" + example;
      case FieldType::kBool: return "'" + given + "' is not a boolean; it must be true or false";
      default: {
        std::string choices;
        for (const auto& c : spec.choices) choices += (choices.empty() ? "" : ", ") + c;
        return "'" + given + "' is not one of the choices; it must be one of " + choices;
      }
    }
  }
  const std::string requirement = spec.check ? spec.check(value) : std::string();
  if (requirement.empty()) return "";
  if (value.empty()) return "the value is empty; it " + requirement;
  const bool numeric = spec.type == FieldType::kInt || spec.type == FieldType::kFloat;
  const bool listed = requirement.rfind("must be one of", 0) == 0;
  return (numeric ? value : "'" + value + "'") + (listed || !numeric ? " is not allowed" : " is out of range") +
         "; it " + requirement;
}

// Binds every field of `table` onto `cfg`, which must outlive parsing. Keys in `dashed` also
// accept the spelling with '-' for '_' (--run-dir).
template <class T>
void add_field_options(CLI::App* app, const FieldTable<T>& table, T& cfg, const std::string& group,
                       const std::vector<std::string>& dashed = {}) {
  for (const auto& f : table) {
    const FieldSpec spec = f.spec;
    std::string choices;
    for (const auto& c : spec.choices) choices += (choices.empty() ? "" : ",") + c;
    CLI::Validator check([spec](std::string& value) { return field_error(spec, value); },
                         choices.empty() ? "" : "{" + choices + "}");
    std::string names = "--" + spec.key;
    for (const auto& key : dashed)
      if (key == spec.key) {
        std::string alias = key;
        for (char& c : alias) c = c == '_' ? '-' : c;
        names += ",--" + alias;
      }
    app->add_option_function<std::string>(
           names, [&cfg, set = f.set](const std::string& value) { set(cfg, value); }, spec.help)
        ->transform(check)  // a transform, so the canonical text is what `set` receives
        ->type_name(spec.type == FieldType::kInt     ? "INT"
                    : spec.type == FieldType::kFloat ? "FLOAT"
                    : spec.type == FieldType::kBool  ? "BOOL"
                    : spec.type == FieldType::kList  ? "LIST"
                                                     : "TEXT")
        ->default_str(f.get(cfg))
        ->group(group);
  }
}

}  // namespace hamgan::cli
