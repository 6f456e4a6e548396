// --config FILE for subcommands. CLI11 (2.1) reads config files for the root
// app only, so the chosen subcommand's --config is expanded here, before
// parsing: each `key = value` of the TOML file (read by core/config_file.h)
// becomes `--key value` unless
// the command line already sets that option (command line wins). A key of a
// known config table (model, block options, train) that the command does not
// take is skipped, so one experiment file serves train, model-info, ...; any
// other key is an error naming the key and the file.
#include <algorithm>
#include <filesystem>

#include "cli/command.h"
#include "core/config_file.h"
#include "core/errors.h"
#include "gan/model/model_config.h"
#include "gan/train/train_config.h"

namespace hamgan::cli {
namespace {

bool sets_option(const std::vector<std::string>& args, size_t from, const CLI::Option* opt) {
  for (size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    for (const auto& l : opt->get_lnames())
      if (a == "--" + l || a.rfind("--" + l + "=", 0) == 0) return true;
    for (const auto& s : opt->get_snames())
      if (a.rfind("-" + s, 0) == 0) return true;
  }
  return false;
}

// Whether `key` (either spelling) is a key of the model (with block options) or train table.
// `--key=value` keeps "-5" or "--x" one word; an empty value goes as its own
// word, since CLI11 would take the next argument for `--key=`.
void inject_value(std::vector<std::string>& injected, const std::string& key, const std::string& value) {
  if (value.empty()) {
    injected.push_back("--" + key);
    injected.push_back("");
  } else {
    injected.push_back("--" + key + "=" + value);
  }
}

bool is_config_table_key(const std::string& key) {
  std::string swapped = key;
  for (char& ch : swapped) ch = ch == '_' ? '-' : ch == '-' ? '_' : ch;
  for (const auto& f : model_config_fields())
    if (f.spec.key == key || f.spec.key == swapped) return true;
  for (const auto& f : train_config_fields())
    if (f.spec.key == key || f.spec.key == swapped) return true;
  return false;
}

}  // namespace

void add_config_file_option(CLI::App* sub) {
  sub->add_option("--config",
                  "TOML file of option values (command line overrides it; model and train keys the command does "
                  "not take are skipped, other unknown keys are errors)")
      ->check(CLI::ExistingFile);
}

std::map<std::string, std::string> expand_config_file(CLI::App& root, std::vector<std::string>& args) {
  std::map<std::string, std::string> origins;
  // The subcommand chain: leading words naming subcommands.
  CLI::App* app = &root;
  size_t pos = 0;
  std::string command = "hamgan";
  while (pos < args.size() && !args[pos].empty() && args[pos][0] != '-') {
    const std::string word = args[pos];
    auto subs = app->get_subcommands([&](CLI::App* s) { return s->check_name(word); });
    if (subs.empty()) break;
    CLI::App* sub = subs.front();
    command += " " + args[pos];
    app = sub;
    ++pos;
  }
  if (app == &root || !app->get_option_no_throw("--config")) return origins;
  std::string path;
  for (size_t i = pos; i < args.size(); ++i) {
    if (args[i] == "--config" && i + 1 < args.size()) path = args[i + 1];
    if (args[i].rfind("--config=", 0) == 0) path = args[i].substr(9);
  }
  if (path.empty()) return origins;
  if (std::filesystem::is_directory(path)) throw ConfigError(path + ": is a directory; give --config a TOML file");
  if (!std::filesystem::is_regular_file(path))
    throw ConfigError(path + ": config file not found; give --config the path of a TOML file");
  std::vector<std::string> injected;
  for (const auto& item : read_config_file(path)) {
    const std::string where = path + ":" + std::to_string(item.line);
    const std::string full = item.table.empty() ? item.key : item.table + "." + item.key;
    // The key as written, else with '_' and '-' swapped (per_class ↔ per-class).
    std::string key = item.key;
    const CLI::Option* opt = nullptr;
    if (item.table.empty()) {
      opt = app->get_option_no_throw("--" + key);
      if (!opt) {
        for (char& ch : key) ch = ch == '_' ? '-' : ch == '-' ? '_' : ch;
        opt = app->get_option_no_throw("--" + key);
      }
    }
    if (!opt && item.table.empty() && is_config_table_key(item.key)) continue;  // known, not for this command
    if (!opt || key == "config" || key == "help")
      throw ConfigError(where + ": unknown key '" + full + "' for '" + command + "' (see '" + command +
                        " --help' for the option names)");
    if (sets_option(args, pos, opt)) continue;
    origins["--" + key] = where;
    if (opt->get_expected_min() == 0) {  // flag: key = true | false
      if (!item.is_bool)
        throw ConfigError(where + ": " + full + " = " + item.values.front() + " is not a boolean; use true or false");
      injected.push_back("--" + key + "=" + item.values.front());
    } else if (opt->get_type_name().rfind("LIST", 0) == 0) {  // a list field: the array's items, comma-joined
      std::string joined;
      for (const auto& v : item.values) joined += (joined.empty() ? "" : ",") + v;
      inject_value(injected, key, joined);
    } else {
      if (item.values.empty()) throw ConfigError(where + ": " + full + " is an empty array; give a value");
      if (int(item.values.size()) > opt->get_expected_max())
        throw ConfigError(where + ": " + full + " takes one value, got an array of " +
                          std::to_string(item.values.size()));
      if (item.values.size() == 1) {
        inject_value(injected, key, item.values.front());
      } else {
        injected.push_back("--" + key);
        for (const auto& v : item.values) injected.push_back(v);
      }
    }
  }
  args.insert(args.begin() + pos, injected.begin(), injected.end());
  return origins;
}

}  // namespace hamgan::cli
