#pragma once
// Command-line options generated from field tables (core/config_fields.h): one
// `--key VALUE` option per field (a flag field also takes a bare `--key`), its
// value checked and a bad one phrased by field_problem where the option is
// defined. The same rows take the keys of the command's --config file
// (cli/config_file.cpp), so a key reads the same from both.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "core/config_fields.h"

namespace hamgan::cli {

// One option bound to a command: its row, its CLI11 option and where a checked value goes.
struct BoundOption {
  FieldSpec spec;
  CLI::Option* option = nullptr;
  std::function<void(const std::string&)> set;  // receives checked, canonical text
  std::function<void(const std::vector<std::string>&)> set_items;  // text lists: a file's array as it is
  bool from_config = true;                      // a --config file may set it
  bool set_from_config = false;                 // the --config file did set it
};

// The options bound on `app`, in the order they were added.
std::vector<BoundOption>& bound_options(const CLI::App* app);

// What is wrong with `value` for `spec`, value first, with the fix ("" when fine; `value` becomes
// canonical). The prefix "--key: " (or "FILE:LINE: key: ") is added by the caller.
inline std::string field_error(const FieldSpec& spec, std::string& value) { return field_problem(spec, value); }

// One option for `spec` on `app`; `current` is shown as its default. `dashed_alias` adds the
// spelling with '-' for '_' (--run-dir).
CLI::Option* add_field_option(CLI::App* app, const FieldSpec& spec, std::function<void(const std::string&)> set,
                              const std::string& current, const std::string& group, bool dashed_alias = false);

// Binds every field of `table` onto `cfg`, which must outlive parsing. Keys in `dashed` also
// accept the spelling with '-' for '_'.
template <class T>
void add_field_options(CLI::App* app, const FieldTable<T>& table, T& cfg, const std::string& group,
                       const std::vector<std::string>& dashed = {}) {
  for (const auto& f : table) {
    bool alias = false;
    for (const auto& key : dashed) alias |= key == f.spec.key;
    add_field_option(
        app, f.spec, [&cfg, set = f.set](const std::string& value) { set(cfg, value); }, f.get(cfg), group, alias);
  }
}

// A positional argument (text). With a long name among `names` ("src,--src") it is a --config key too.
CLI::Option* add_argument(CLI::App* app, const std::string& names, std::string& target, const std::string& help,
                          bool required);

// A list of texts taken as they are (paths, arguments for another command): `--key A B` or
// repeated `--key=A --key=B`, each item checked by `check` (CLI11's message becomes "--key: <check's>").
// It is a --config key too (a TOML array). `required` as for field rows.
CLI::Option* add_text_list(CLI::App* app, const std::string& key, std::vector<std::string>& target,
                           const std::string& help, bool required, CLI::Validator check = {});

// "PATH: no such file; give the path of an existing file" for a path that is not a file.
CLI::Validator existing_file();

// Whether the command line or the --config file gave `key` (its long name without "--").
bool option_given(const CLI::App* app, const std::string& key);

// Keeps `key` to the command line: a --config file's key of that name is not applied to it.
void command_line_only(const CLI::App* app, const std::string& key);

// Runs `run` when `app` is the chosen command: first its --config file is applied (the command
// line wins), then its required options are checked.
void on_run(CLI::App* app, std::function<void()> run);

}  // namespace hamgan::cli
