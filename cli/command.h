#pragma once
// Subcommands register themselves at static-initialisation time, so adding one
// is a new cli/cmd_*.cpp file and nothing else. Each command only maps options
// onto a library config struct (field tables, cli/field_options.h) and calls one
// library function.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace hamgan::cli {

using CommandSetup = std::function<void(CLI::App& root)>;

struct CommandRegistrar {
  CommandRegistrar(const std::string& name, CommandSetup setup);
};

// "hamgan train", "hamgan bench fid": how errors and help hints name a command.
std::string command_words(const CLI::App* app);

// Every subcommand accepts --config FILE (TOML); command-line values override
// the file. Keys are the long option names without dashes and go through the
// same rows as the options (cli/field_options.h); keys of the model, block-option
// and train tables that a command does not take are skipped (one experiment file
// serves every command), other unknown keys are errors naming the key. Options
// required on the command line may come from the file.
void add_config_file_option(CLI::App* sub);

// Applies the chosen command's --config FILE to its bound options (on_run does this first).
// Throws ConfigError "FILE:LINE: key: ..." for a bad value, an unknown key or unreadable TOML.
void apply_config_file(CLI::App* app);

// One line for a CLI11 parse error, with the fix: an unknown command or option
// with the closest one, a repeated option, a missing value or argument. Values
// are checked by their rows, whose errors pass through as they are.
std::string parse_error_line(const CLI::ParseError& e, const CLI::App& root, const std::vector<std::string>& args);

}  // namespace hamgan::cli
