// Field rows as CLI11 options, and the bookkeeping that lets a --config file reach the same rows.
#include "cli/field_options.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/command.h"
#include "core/errors.h"

namespace hamgan::cli {
namespace {

std::string type_name(const FieldSpec& spec) {
  if (spec.flag && spec.type == FieldType::kChoice) {  // bare, or one of its words: --resume [auto]
    std::string words;
    for (const auto& c : spec.choices)
      if (c != "true" && c != "false") words += (words.empty() ? "" : "|") + c;
    return "[" + words + "]";
  }
  if (spec.flag) return "";  // given bare in help's usage: --grid, not --grid BOOL
  switch (spec.type) {
    case FieldType::kInt: return "INT";
    case FieldType::kFloat: return "FLOAT";
    case FieldType::kBool: return "BOOL";
    case FieldType::kList: return "LIST";
    default: return "TEXT";
  }
}

std::string dashed(std::string key) {
  for (char& c : key) c = c == '_' ? '-' : c;
  return key;
}

BoundOption* find_bound(const CLI::App* app, const std::string& key) {
  for (auto& b : bound_options(app))
    if (b.spec.key == key) return &b;
  return nullptr;
}

}  // namespace

std::vector<BoundOption>& bound_options(const CLI::App* app) {
  static std::map<const CLI::App*, std::vector<BoundOption>> bound;
  // An app that reuses a destroyed app's address (tests build several) does not inherit its rows.
  auto& rows = bound[app];
  const auto options = app->get_options();
  rows.erase(std::remove_if(rows.begin(), rows.end(),
                            [&](const BoundOption& b) {
                              return std::find(options.begin(), options.end(), b.option) == options.end();
                            }),
             rows.end());
  return rows;
}

CLI::Option* add_field_option(CLI::App* app, const FieldSpec& spec, std::function<void(const std::string&)> set,
                              const std::string& current, const std::string& group, bool dashed_alias) {
  std::string names = "--" + spec.key;
  if (dashed_alias) names += ",--" + dashed(spec.key);
  if (spec.flag && !spec.negation.empty()) names += ",!--" + spec.negation;
  std::string choices;
  for (const auto& c : spec.choices) choices += (choices.empty() ? "" : ",") + c;
  const std::string help = spec.help + (spec.required ? " (required)" : "");
  CLI::Option* opt = nullptr;
  if (spec.type == FieldType::kList) {
    // Items as one comma-separated word or as several words, checked together.
    opt = app->add_option_function<std::vector<std::string>>(
        names,
        [spec, set](const std::vector<std::string>& words) {
          std::string value;
          for (const auto& w : words) value += (value.empty() ? "" : ",") + w;
          if (const std::string problem = field_problem(spec, value); !problem.empty())
            throw CLI::ValidationError("--" + spec.key, problem);
          set(value);
        },
        help);
    opt->expected(1, CLI::detail::expected_max_vector_size);
  } else {
    CLI::Validator check([spec](std::string& value) { return field_problem(spec, value); },
                         choices.empty() ? "" : "{" + choices + "}");
    // A boolean flag is given bare (--key) or as --key=VALUE; a choice or text flag also takes
    // the next word (--resume auto, --resume FILE): expected(0) makes it flag-like (bare reads
    // "true"), expected(0, 1) lets it take one word. Other options take the next word.
    if (spec.flag && spec.type != FieldType::kBool)
      opt = app->add_option(names, help)->expected(0)->expected(0, 1);
    else if (spec.flag)
      opt = app->add_flag(names)->description(help);
    else
      opt = app->add_option(names, help);
    opt->transform(check)  // a transform, so the canonical text is what `set` receives
        ->each([set](const std::string& value) { set(value); });
  }
  opt->type_name(type_name(spec))->group(group);
  if (!spec.flag) opt->default_str(current);
  bound_options(app).push_back({spec, opt, std::move(set)});
  return opt;
}

CLI::Option* add_argument(CLI::App* app, const std::string& names, std::string& target, const std::string& help,
                          bool required) {
  CLI::Option* opt = app->add_option(names, target, help);
  if (required) opt->required();
  else opt->capture_default_str();
  if (!opt->get_lnames().empty()) {
    const FieldSpec spec = string_field(opt->get_lnames().front(), help);
    bound_options(app).push_back({spec, opt, [&target](const std::string& value) { target = value; }});
  }
  return opt;
}

CLI::Option* add_text_list(CLI::App* app, const std::string& key, std::vector<std::string>& target,
                           const std::string& help, bool required, CLI::Validator check) {
  FieldSpec spec = list_field(key, {}, help);
  spec.required = required;
  CLI::Option* opt = app->add_option("--" + key, target, help + (required ? " (required)" : ""));
  opt->check(check);
  bound_options(app).push_back({spec, opt, [&target](const std::string& value) { target = split_list(value); },
                                [&target](const std::vector<std::string>& items) { target = items; }});
  return opt;
}

CLI::Validator existing_file() {
  return CLI::Validator(
      [](std::string& path) {
        if (std::filesystem::is_directory(path)) return path + " is a directory; give a file";
        if (!std::filesystem::exists(path)) return path + ": no such file; give the path of an existing file";
        return std::string();
      },
      "FILE", "existing file");
}

bool option_given(const CLI::App* app, const std::string& key) {
  const BoundOption* b = find_bound(app, key);
  return b && (b->option->count() > 0 || b->set_from_config);
}

void command_line_only(const CLI::App* app, const std::string& key) {
  if (BoundOption* b = find_bound(app, key)) b->from_config = false;
}

void on_run(CLI::App* app, std::function<void()> run) {
  app->callback([app, run = std::move(run)] {
    apply_config_file(app);
    const std::string command = command_words(app);
    for (const auto& b : bound_options(app))
      if (b.spec.required && !option_given(app, b.spec.key))
        throw ConfigError("--" + b.spec.key + " is required; add '--" + b.spec.key + " VALUE' (see '" + command +
                          " --help')");
    run();
  });
}

}  // namespace hamgan::cli
