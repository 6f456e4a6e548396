// CLI11's parse errors as HamGAN's one-line errors: what is wrong and what to do,
// never a bare "A subcommand is required". A bad value is phrased by its field row
// (cli/field_options.h) and passes through; what is left is read from the
// exception's type and the parsed state, not from CLI11's wording.
#include <algorithm>

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

// The candidate nearest to `word`, if it is a near miss (at most 2 edits, fewer than half the word).
std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::min<size_t>(3, (word.size() + 1) / 2);
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

std::string command_names(const CLI::App& root) {
  std::string names;
  for (const CLI::App* sub : root.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

// The subcommand named by the leading words of args.
const CLI::App* command_of(const CLI::App& root, const std::vector<std::string>& args) {
  const CLI::App* app = &root;
  for (const auto& word : args) {
    if (word.empty() || word[0] == '-') break;
    auto subs = app->get_subcommands([&](const CLI::App* s) { return !s->get_name().empty() && s->check_name(word); });
    if (subs.empty()) break;
    app = subs.front();
  }
  return app;
}

// Every option of `app` and its option groups.
std::vector<const CLI::Option*> options_of(const CLI::App& app) {
  std::vector<const CLI::Option*> out = app.get_options();
  for (const CLI::App* group : app.get_subcommands([](const CLI::App* s) { return s->get_name().empty(); })) {
    const auto more = options_of(*group);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

std::string no_command(const CLI::App& root, const std::vector<std::string>& args) {
  if (!args.empty() && !args[0].empty() && args[0][0] != '-' && command_of(root, args) == &root) {
    std::vector<std::string> names;
    for (const CLI::App* sub : root.get_subcommands({})) names.push_back(sub->get_name());
    const std::string near = closest(args[0], names);
    return "unknown command '" + args[0] + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
           " (commands: " + command_names(root) + ")";
  }
  if (!args.empty() && args[0].rfind("-", 0) == 0)
    return "unexpected " + args[0] + " before a command; give a command first (commands: " + command_names(root) + ")";
  return "no command given; commands: " + command_names(root) + " (e.g. 'hamgan train --help')";
}

std::string unexpected(const CLI::App& root, const CLI::App& app, const std::string& command) {
  std::vector<std::string> extras = app.remaining();
  if (extras.empty()) extras = root.remaining();
  std::string words;
  for (const auto& w : extras) words += (words.empty() ? "" : " ") + w;
  const std::string line = "unexpected " + words + " for '" + command + "'";
  if (!extras.empty() && extras[0].rfind("--", 0) == 0) {
    std::vector<std::string> names;
    for (const CLI::Option* opt : options_of(app))
      for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    const std::string near = closest(extras[0].substr(0, extras[0].find('=')), names);
    if (!near.empty()) return line + "; did you mean " + near + "?";
  }
  return line + "; see '" + command + " --help' for its options";
}

// A required option or argument CLI11 found missing (positional arguments; named ones are checked by on_run).
std::string missing(const CLI::App& app, const std::string& command) {
  for (const CLI::Option* opt : options_of(app))
    if (opt->get_required() && opt->count() == 0) {
      if (opt->get_lnames().empty() && opt->get_snames().empty())
        return "argument " + opt->get_name() + " is missing; see '" + command + " --help' for the arguments in order";
      return opt->get_name() + " is required; add '" + opt->get_name() + " VALUE' (see '" + command + " --help')";
    }
  return "";
}

// Given more often than it takes, or named without the value it takes.
std::string value_count(const CLI::App& app, const std::vector<std::string>& args) {
  for (const CLI::Option* opt : options_of(app))
    if (opt->get_expected_min() > 0 && opt->get_expected_max() == 1 && opt->count() > 1)
      return opt->get_name() + ": given " + std::to_string(opt->count()) + " times; give it once";
  for (auto a = args.rbegin(); a != args.rend(); ++a)
    for (const CLI::Option* opt : options_of(app))
      if (a->rfind("-", 0) == 0 && opt->check_name(*a) && opt->get_expected_min() > 0 && opt->count() == 0)
        return opt->get_name() + ": no value given; use '" + opt->get_name() + " " + opt->get_type_name() + "'";
  return "";
}

}  // namespace

std::string command_words(const CLI::App* app) {
  std::string words;
  for (; app && app->get_parent(); app = app->get_parent()) words = " " + app->get_name() + words;
  return "hamgan" + words;
}

std::string parse_error_line(const CLI::ParseError& e, const CLI::App& root, const std::vector<std::string>& args) {
  const CLI::App* app = command_of(root, args);
  const std::string command = command_words(app);
  std::string line;
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    line = missing(*app, command);
    if (line.empty()) line = no_command(root, args);  // a (sub)command is required
  } else if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    line = unexpected(root, *app, command);
  } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    line = value_count(*app, args);
  } else if (dynamic_cast<const CLI::ValidationError*>(&e)) {
    line = e.what();  // "--key: <problem>; it ..." from the option's row
  }
  if (line.empty()) line = std::string(e.what()) + "; see '" + command + " --help'";
  for (char& c : line) c = c == '\n' ? ' ' : c;
  return line;
}

}  // namespace hamgan::cli
