// --config FILE for subcommands. CLI11 (2.1) reads config files for the root
// app only, so the chosen subcommand's --config is expanded here, before
// parsing: each `key = value` of the TOML file becomes `--key value` unless
// the command line already sets that option (command line wins). A key of a
// known config table (model, block options, train) that the command does not
// take is skipped, so one experiment file serves train, model-info, ...; any
// other key is an error naming the key and the file.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/command.h"
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

// CLI11's TOML reader is lenient (`size = [1, 2` reads as 1); reject lines that
// are not `[section]` or `key = value` with balanced quotes and brackets.
void check_syntax(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::string t = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    bool ok;
    if (t[0] == '[') {
      ok = t.back() == ']';
    } else {
      const auto eq = t.find('=');
      std::string key = eq == std::string::npos ? "" : t.substr(0, eq);
      key.erase(key.find_last_not_of(" \t") + 1);
      std::string value = eq == std::string::npos ? "" : t.substr(eq + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      const auto hash = value.find(" #");
      if (value.front() != '"' && value.front() != '\'' && hash != std::string::npos) value.erase(hash);
      value.erase(value.find_last_not_of(" \t") + 1);
      ok = !key.empty() && key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
                               std::string::npos;
      ok = ok && !value.empty();
      if (ok && (value.front() == '"' || value.front() == '\''))
        ok = value.size() >= 2 && value.back() == value.front();
      else if (ok && value.front() == '[')
        ok = value.back() == ']';
      else if (ok)
        ok = value.find_first_of(" \t[]\"'") == std::string::npos;
    }
    if (!ok) throw ConfigError(path + ":" + std::to_string(number) + ": malformed line '" + t + "' (expected key = value)");
  }
}

// Whether `key` (either spelling) is a key of the model (with block options) or train table.
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

void expand_config_file(CLI::App& root, std::vector<std::string>& args) {
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
  if (app == &root || !app->get_option_no_throw("--config")) return;
  std::string path;
  for (size_t i = pos; i < args.size(); ++i) {
    if (args[i] == "--config" && i + 1 < args.size()) path = args[i + 1];
    if (args[i].rfind("--config=", 0) == 0) path = args[i].substr(9);
  }
  if (path.empty()) return;
  if (!std::filesystem::is_regular_file(path)) throw ConfigError(path + ": config file not found");
  check_syntax(path);
  std::vector<CLI::ConfigItem> items;
  try {
    items = CLI::ConfigTOML().from_file(path);
  } catch (const CLI::Error& e) {
    throw ConfigError(path + ": cannot read config file (" + e.what() + ")");
  }
  std::vector<std::string> injected;
  for (const auto& item : items) {
    if (item.name == "++" || item.name == "--") continue;  // section markers
    // The key as written, else with '_' and '-' swapped (per_class ↔ per-class).
    std::string key = item.name;
    const CLI::Option* opt = nullptr;
    if (item.parents.empty()) {
      opt = app->get_option_no_throw("--" + key);
      if (!opt) {
        for (char& ch : key) ch = ch == '_' ? '-' : ch == '-' ? '_' : ch;
        opt = app->get_option_no_throw("--" + key);
      }
    }
    if (!opt && item.parents.empty() && is_config_table_key(item.name)) continue;  // known, not for this command
    if (!opt || key == "config" || key == "help")
      throw ConfigError(path + ": unknown key '" + item.fullname() + "' for '" + command +
                        "' (see '" + command + " --help' for the option names)");
    if (sets_option(args, pos, opt)) continue;
    if (opt->get_expected_min() == 0) {  // flag: key = true | false
      const std::string v = item.inputs.empty() ? "true" : item.inputs.front();
      injected.push_back("--" + key + "=" + v);
    } else {
      injected.push_back("--" + key);
      if (item.inputs.empty()) throw ConfigError(path + ": key '" + item.fullname() + "' has no value");
      if (int(item.inputs.size()) > opt->get_expected_max())
        throw ConfigError(path + ": key '" + item.fullname() + "' takes one value, got " +
                          std::to_string(item.inputs.size()) + " (malformed line?)");
      for (const auto& v : item.inputs) injected.push_back(v);
    }
  }
  args.insert(args.begin() + pos, injected.begin(), injected.end());
}

}  // namespace hamgan::cli
