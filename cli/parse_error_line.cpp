// CLI11's parse errors as HamGAN's one-line errors: what is wrong and what to do,
// never a bare "A subcommand is required" or a 309-digit range bound.
#include <algorithm>
#include <regex>

#include "cli/command.h"

namespace hamgan::cli {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string command_names(const CLI::App& root) {
  std::string names;
  for (const CLI::App* sub : root.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

std::string unknown_command(const std::string& word, const CLI::App& root) {
  std::string closest;
  size_t best = 3;  // suggest only near misses
  for (const CLI::App* sub : root.get_subcommands({})) {
    const size_t d = edit_distance(word, sub->get_name());
    if (d < best) best = d, closest = sub->get_name();
  }
  std::string line = "unknown command '" + word + "'";
  if (!closest.empty()) line += "; did you mean '" + closest + "'?";
  return line + " (commands: " + command_names(root) + ")";
}

// The command words at the start of args ("train"), for "see 'hamgan train --help'".
std::string command_of(const CLI::App& root, const std::vector<std::string>& args) {
  std::string command = "hamgan";
  const CLI::App* app = &root;
  for (const auto& word : args) {
    if (word.empty() || word[0] == '-') break;
    auto subs = const_cast<CLI::App*>(app)->get_subcommands([&](CLI::App* s) { return s->check_name(word); });
    if (subs.empty()) break;
    app = subs.front();
    command += " " + word;
  }
  return command;
}

}  // namespace

std::string parse_error_line(const CLI::ParseError& e, const CLI::App& root, const std::vector<std::string>& args,
                             const std::map<std::string, std::string>& origins) {
  std::string msg = e.what();
  const std::string command = command_of(root, args);
  const std::string help = "see '" + command + " --help'";
  std::smatch m;
  if (e.get_name() == "RequiredError" && msg.find("subcommand") != std::string::npos) {
    if (command == "hamgan" && !args.empty() && !args[0].empty() && args[0][0] != '-')
      return unknown_command(args[0], root);
    return "no command given; commands: " + command_names(root) + " (e.g. 'hamgan train --help')";
  }
  if (std::regex_search(msg, m, std::regex("^(--?[A-Za-z0-9_-]+): At Most 1 required but received (\\d+)")))
    return m[1].str() + ": given " + m[2].str() + " times; give it once (a --config file's value counts once, " +
           "and the command line overrides it)";
  if (std::regex_search(msg, m, std::regex("^The following arguments? (?:was|were) not expected: (.*)$")))
    return "unexpected " + m[1].str() + " for '" + command + "'; " + help + " for its options";
  // CLI11's range checks print the bound as a 309-digit number when it is "no upper bound".
  if (std::regex_search(msg, m, std::regex("^(--?[A-Za-z0-9_-]+): Value (\\S+) not in range (\\S+) to (\\S+)"))) {
    const double hi = std::stod(m[4].str());
    const std::string lo = std::to_string(static_cast<long long>(std::stod(m[3].str())));
    msg = m[1].str() + ": " + m[2].str() + " is out of range; use a value >= " + lo +
          (hi < 1e15 ? " and <= " + m[4].str() : "");
  }
  // "--key: problem" of a value that came from a config file names the file and line.
  if (std::regex_search(msg, m, std::regex("^(--[A-Za-z0-9_-]+): (.*)$"))) {
    const auto origin = origins.find(m[1].str());
    if (origin != origins.end()) return origin->second + ": " + m[1].str().substr(2) + ": " + m[2].str();
  }
  for (char& c : msg) c = c == '\n' ? ' ' : c;
  while (!msg.empty() && msg.back() == ' ') msg.pop_back();
  return msg + "; " + help;
}

}  // namespace hamgan::cli
