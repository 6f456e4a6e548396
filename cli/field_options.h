#pragma once
// CLI11 options generated from a field table (core/config_fields.h): one
// `--key VALUE` option per field, checked by the field's own check, with the
// help text and the current value as default. Keys double as --config TOML keys.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/config_fields.h"

namespace hamgan::cli {

// Binds every field of `table` onto `cfg`, which must outlive parsing. Keys in `dashed` also
// accept the spelling with '-' for '_' (--run-dir).
template <class T>
void add_field_options(CLI::App* app, const FieldTable<T>& table, T& cfg, const std::string& group,
                       const std::vector<std::string>& dashed = {}) {
  for (const auto& f : table) {
    const FieldSpec spec = f.spec;
    std::string choices;
    for (const auto& c : spec.choices) choices += (choices.empty() ? "" : ",") + c;
    CLI::Validator check([spec](std::string& value) { return field_problem(spec, value); },
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
                                                     : "TEXT")
        ->default_str(f.get(cfg))
        ->group(group);
  }
}

}  // namespace hamgan::cli
