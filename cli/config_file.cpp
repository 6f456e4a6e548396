// --config FILE for subcommands. CLI11 (2.1) reads config files for the root
// app only, so the chosen command applies its own when it runs (on_run): each
// `key = value` of the TOML file (read by core/config_file.h) goes through the
// row of the option of that name, checked as on the command line, unless the
// command line already gave that option (command line wins). A key of a known
// config table (model, block options, train) that the command does not take is
// skipped, so one experiment file serves train, model-info, ...; any other key
// is an error naming the key and the file.
#include <filesystem>

#include "cli/command.h"
#include "cli/field_options.h"
#include "core/config_file.h"
#include "core/errors.h"
#include "gan/model/model_config.h"
#include "gan/train/run_control.h"

namespace hamgan::cli {
namespace {

std::string swapped(std::string key) {
  for (char& ch : key) ch = ch == '_' ? '-' : ch == '-' ? '_' : ch;
  return key;
}

// Whether `key` (either spelling) is a key of the model (with block options) or train table, or train's run control.
bool is_config_table_key(const std::string& key) {
  for (const auto& f : model_config_fields())
    if (f.spec.key == key || f.spec.key == swapped(key)) return true;
  for (const auto* table : {&train_config_fields(), &train_run_control_fields()})
    for (const auto& f : *table)
      if (f.spec.key == key || f.spec.key == swapped(key)) return true;
  return false;
}

// The bound option a file key names (either spelling, or a flag's negation); `negated` when the latter.
BoundOption* option_for_key(const CLI::App* app, const std::string& key, bool& negated) {
  for (auto& b : bound_options(app)) {
    negated = !b.spec.negation.empty() && (b.spec.negation == key || b.spec.negation == swapped(key));
    if (b.spec.key == key || b.spec.key == swapped(key) || negated) return &b;
  }
  return nullptr;
}

}  // namespace

void add_config_file_option(CLI::App* sub) {
  sub->add_option("--config",
                  "TOML file of option values (command line overrides it; model and train keys the command does "
                  "not take are skipped, other unknown keys are errors)")
      ->type_name("FILE");
}

void apply_config_file(CLI::App* app) {
  const CLI::Option* config = app->get_option_no_throw("--config");
  if (!config || config->count() == 0) return;
  const std::string path = config->as<std::string>();
  if (std::filesystem::is_directory(path)) throw ConfigError(path + ": is a directory; give --config a TOML file");
  if (!std::filesystem::is_regular_file(path))
    throw ConfigError(path + ": config file not found; give --config the path of a TOML file");
  const std::string command = command_words(app);
  for (const auto& item : read_config_file(path)) {
    const std::string where = path + ":" + std::to_string(item.line);
    const std::string full = item.table.empty() ? item.key : item.table + "." + item.key;
    bool negated = false;
    BoundOption* bound = item.table.empty() ? option_for_key(app, item.key, negated) : nullptr;
    if (!bound || !bound->from_config) {
      if (item.table.empty() && is_config_table_key(item.key)) continue;  // known, not for this command
      throw ConfigError(where + ": unknown key '" + full + "' for '" + command + "' (see '" + command +
                        " --help' for the option names)");
    }
    if (bound->option->count() > 0) continue;  // the command line wins
    std::string value;
    if (bound->spec.flag && bound->spec.type == FieldType::kBool) {  // key = true | false
      if (!item.is_bool)
        throw ConfigError(where + ": " + full + " = " + (item.values.empty() ? "[]" : item.values.front()) +
                          " is not a boolean; use true or false");
      value = item.values.front();
      if (negated) value = value == "true" ? "false" : "true";
    } else {
      value = single_text_value(where, item, bound->spec.type == FieldType::kList);
    }
    if (const std::string problem = field_problem(bound->spec, value); !problem.empty())
      throw ConfigError(where + ": " + full + ": " + problem);
    if (bound->set_items) bound->set_items(item.values);
    else bound->set(value);
    bound->set_from_config = true;
  }
}

}  // namespace hamgan::cli
