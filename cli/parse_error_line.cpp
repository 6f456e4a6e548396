// CLI11's parse errors as HamGAN's one-line errors: what is wrong and what to do,
// never a bare "A subcommand is required" or a 309-digit range bound. Numeric
// options are read strictly first, so range errors only see numbers.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
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

std::string unknown_command(const std::string& word, const CLI::App& root) {
  std::vector<std::string> names;
  for (const CLI::App* sub : root.get_subcommands({})) names.push_back(sub->get_name());
  const std::string near = closest(word, names);
  std::string line = "unknown command '" + word + "'";
  if (!near.empty()) line += "; did you mean '" + near + "'?";
  return line + " (commands: " + command_names(root) + ")";
}

// The subcommand named by the leading words of args, and those words ("hamgan train").
const CLI::App* command_of(const CLI::App& root, const std::vector<std::string>& args, std::string& words) {
  words = "hamgan";
  const CLI::App* app = &root;
  for (const auto& word : args) {
    if (word.empty() || word[0] == '-') break;
    auto subs = app->get_subcommands([&](const CLI::App* s) { return !s->get_name().empty() && s->check_name(word); });
    if (subs.empty()) break;
    app = subs.front();
    words += " " + word;
  }
  return app;
}

// Every long option name ("--batch_size") of `app` and its option groups.
void long_names(const CLI::App& app, std::vector<std::string>& out) {
  for (const CLI::Option* opt : app.get_options())
    for (const auto& l : opt->get_lnames()) out.push_back("--" + l);
  for (const CLI::App* group : app.get_subcommands([](const CLI::App* s) { return s->get_name().empty(); }))
    long_names(*group, out);
}

// "INT:POSITIVE" -> "INT"; ":FILE" -> "FILE".
std::string base_type(const CLI::Option& opt) {
  const std::string full = opt.get_type_name();
  const auto colon = full.find(':');
  const std::string first = full.substr(0, colon);
  if (!first.empty() || colon == std::string::npos) return first.empty() ? "VALUE" : first;
  return full.substr(colon + 1, full.find(':', colon + 1) - colon - 1);
}

std::string number_text(const std::string& s) {
  const double v = std::strtod(s.c_str(), nullptr);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// The range a numeric option's validators allow, as "must be >= 1" ("" when unbounded).
std::string requirement_of(const CLI::Option& opt) {
  const std::string full = opt.get_type_name(), type = base_type(opt);
  const bool integer = type == "INT" || type == "UINT";
  if (full.find(":POSITIVE") != std::string::npos) return integer ? "must be >= 1" : "must be > 0";
  if (full.find(":NONNEGATIVE") != std::string::npos) return "must be >= 0";
  std::smatch m;
  if (std::regex_search(full, m, std::regex(" in \\[(\\S+) - (\\S+)\\]"))) {
    const std::string lo = number_text(m[1].str());
    if (std::strtod(m[2].str().c_str(), nullptr) >= 1e12) return "must be >= " + lo;  // no practical upper bound
    return "must be in [" + lo + ", " + number_text(m[2].str()) + "]";
  }
  return type == "UINT" ? "must be >= 0" : "";
}

bool all_digits(const std::string& s, size_t from) {
  return s.size() > from && std::all_of(s.begin() + from, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A value of an INT/UINT/FLOAT option: "" when it reads as one (made canonical: "+010" -> "10"),
// else what is wrong with it and the fix.
std::string number_problem(const CLI::Option& opt, std::string& value) {
  const std::string type = base_type(opt), requirement = requirement_of(opt);
  // "must be >= 1" -> "; it must be an integer >= 1, like 64 (the default)"
  auto fix = [&](const std::string& noun) {
    const std::string example =
        opt.get_default_str().empty() ? "" : ", like " + opt.get_default_str() + " (the default)";
    return "; it must be " + noun + (requirement.empty() ? "" : " " + requirement.substr(8)) + example;
  };
  if (type == "FLOAT") {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    const bool decimal = !value.empty() && value.find_first_not_of("0123456789+-.eE") == std::string::npos;
    if (decimal && end == value.c_str() + value.size() && std::isfinite(v)) return "";
    return "'" + value + "' is not a finite number" + fix("a number");
  }
  const bool sign = !value.empty() && (value[0] == '-' || value[0] == '+');
  if (!all_digits(value, sign ? 1 : 0))
    return "'" + value + "' is not an integer" + fix(requirement.empty() ? "a whole number" : "an integer");
  const std::string digits = value.substr(
      value.find_first_not_of("+-0") == std::string::npos ? value.size() - 1 : value.find_first_not_of("+-0"));
  const std::string canonical = (value[0] == '-' && digits != "0" ? "-" : "") + digits;
  const bool fits = [&] {
    const char* end = canonical.data() + canonical.size();
    if (type == "UINT") {
      uint64_t u;
      return canonical[0] != '-' && std::from_chars(canonical.data(), end, u).ec == std::errc();
    }
    int64_t i;
    return std::from_chars(canonical.data(), end, i).ec == std::errc();
  }();
  if (!fits)
    return value + " is out of range" +
           (requirement.empty() ? "; it must be an integer that fits in 64 bits" : "; it " + requirement);
  value = canonical;
  return "";
}

// "-5 is out of range; it must be >= 1" for a value a range validator refused.
std::string range_problem(const CLI::Option& opt, std::string value) {
  const std::string problem = number_problem(opt, value);
  if (!problem.empty()) return problem;
  const std::string requirement = requirement_of(opt);
  return value + " is out of range" + (requirement.empty() ? "" : "; it " + requirement);
}

// A CLI11 "not expected" list is written back to front (detail::rjoin).
std::string in_order(const std::string& listed) {
  std::vector<std::string> words;
  for (size_t i = 0; i <= listed.size();) {
    const size_t space = std::min(listed.find(' ', i), listed.size());
    words.push_back(listed.substr(i, space - i));
    i = space + 1;
  }
  std::string out;
  for (auto w = words.rbegin(); w != words.rend(); ++w) out += (out.empty() ? "" : " ") + *w;
  return out;
}

// The CLI11 message rewritten as "what is wrong; what to do", or "" to keep it.
std::string rewrite(const std::string& msg, const CLI::App& app, const std::string& command) {
  const std::string help = "see '" + command + " --help'";
  auto option = [&](const std::string& name) { return app.get_option_no_throw(name); };
  std::smatch m;
  if (std::regex_search(msg, m, std::regex("^(--?[A-Za-z0-9_-]+): At Most 1 required but received (\\d+)")))
    return m[1].str() + ": given " + m[2].str() + " times; give it once (a --config file's value counts once, " +
           "and the command line overrides it)";
  if (std::regex_search(msg, m, std::regex("^The following arguments? (?:was|were) not expected: (.*)$"))) {
    const std::string extras = in_order(m[1].str());
    const std::string first = extras.substr(0, extras.find(' '));
    std::string line = "unexpected " + extras + " for '" + command + "'";
    if (first.rfind("--", 0) == 0) {
      std::vector<std::string> names;
      long_names(app, names);
      const std::string near = closest(first.substr(0, first.find('=')), names);
      if (!near.empty()) return line + "; did you mean " + near + "?";
    }
    return line + "; " + help + " for its options";
  }
  if (std::regex_search(msg, m, std::regex("^(\\S+): Value (.*) not in range \\S+ to \\S+$")) && option(m[1].str()))
    return m[1].str() + ": " + range_problem(*option(m[1].str()), m[2].str());
  if (std::regex_search(msg, m, std::regex("^(\\S+): (.*) not in \\{(.*)\\}$"))) {
    std::string choices = m[3].str();
    for (size_t p = choices.find(','); p != std::string::npos; p = choices.find(',', p + 2))
      choices.replace(p, 1, ", ");
    return m[1].str() + ": '" + m[2].str() + "' is not one of the choices; it must be one of " + choices;
  }
  if (std::regex_search(msg, m, std::regex("^(\\S+): File does not exist: (.*)$")))
    return m[1].str() + ": " + m[2].str() + ": no such file; give the path of an existing file";
  if (std::regex_search(msg, m, std::regex("^(\\S+): File is actually a directory: (.*)$")))
    return m[1].str() + ": " + m[2].str() + " is a directory; give a file";
  if (std::regex_search(msg, m, std::regex("^(\\S+): \\d+ required .* missing$"))) {
    const auto* opt = option(m[1].str());
    return m[1].str() + ": no value given; use '" + m[1].str() + " " + (opt ? base_type(*opt) : "VALUE") + "'";
  }
  if (std::regex_search(msg, m, std::regex("^(\\S+) is required$"))) {
    const std::string name = m[1].str();
    if (name.rfind("-", 0) == 0) return name + " is required; add '" + name + " VALUE' (" + help + ")";
    return "argument " + name + " is missing; " + help + " for the arguments in order";
  }
  const bool bool_text = std::regex_search(msg, m, std::regex("^Could not convert: (\\S+) = (.*)$")) ||
                         std::regex_search(msg, m, std::regex("^(\\S+): Should be true/false or a number()$"));
  if (bool_text) {
    const auto* opt = option(m[1].str());
    const std::string given = m[2].str().empty() ? "the value" : "'" + m[2].str() + "'";
    if (opt && opt->get_expected_min() == 0)
      return m[1].str() + ": " + given + " is not a boolean; it must be true or false (or leave out the value)";
    return m[1].str() + ": '" + m[2].str() + "' is not a valid " + (opt ? base_type(*opt) : "value") + "; " + help;
  }
  if (std::regex_search(msg, m, std::regex("^(\\S+): too many inputs for a flag$")))
    return m[1].str() + ": is a switch and takes no value; give '" + m[1].str() + "' alone";
  return "";
}

void read_numbers_strictly(CLI::App& app) {
  for (CLI::Option* opt : app.get_options({})) {
    const std::string type = base_type(*opt);
    if (opt->get_expected_min() == 0 || (type != "INT" && type != "UINT" && type != "FLOAT")) continue;
    opt->transform(CLI::Validator([opt](std::string& value) { return number_problem(*opt, value); }, ""));
  }
  for (CLI::App* sub : app.get_subcommands({})) read_numbers_strictly(*sub);
}

}  // namespace

void check_numeric_options(CLI::App& root) { read_numbers_strictly(root); }

std::string parse_error_line(const CLI::ParseError& e, const CLI::App& root, const std::vector<std::string>& args,
                             const std::map<std::string, std::string>& origins) {
  std::string msg = e.what();
  std::string command;
  const CLI::App* app = command_of(root, args, command);
  if (e.get_name() == "RequiredError" && msg.find("subcommand") != std::string::npos) {
    if (command == "hamgan" && !args.empty() && !args[0].empty() && args[0][0] != '-')
      return unknown_command(args[0], root);
    if (!args.empty() && args[0].rfind("-", 0) == 0)
      return "unexpected " + args[0] + " before a command; give a command first (commands: " + command_names(root) +
             ")";
    return "no command given; commands: " + command_names(root) + " (e.g. 'hamgan train --help')";
  }
  const std::string rewritten = rewrite(msg, *app, command);
  const bool has_fix = !rewritten.empty() || msg.find("; it ") != std::string::npos;
  if (!rewritten.empty()) msg = rewritten;
  // "--key: problem" of a value that came from a config file names the file and line.
  std::smatch m;
  if (std::regex_search(msg, m, std::regex("^(--[A-Za-z0-9_-]+): (.*)$"))) {
    const auto origin = origins.find(m[1].str());
    if (origin != origins.end()) return origin->second + ": " + m[1].str().substr(2) + ": " + m[2].str();
  }
  for (char& c : msg) c = c == '\n' ? ' ' : c;
  while (!msg.empty() && msg.back() == ' ') msg.pop_back();
  return has_fix ? msg : msg + "; see '" + command + " --help'";
}

}  // namespace hamgan::cli
