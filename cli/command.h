#pragma once
// Subcommands register themselves at static-initialisation time, so adding one
// is a new cli/cmd_*.cpp file and nothing else. Each command only maps options
// onto a library config struct and calls one library function.
#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hamgan::cli {

using CommandSetup = std::function<void(CLI::App& root)>;

struct CommandRegistrar {
  CommandRegistrar(const std::string& name, CommandSetup setup);
};

// Every subcommand accepts --config FILE (TOML); command-line values override
// the file. Keys are the long option names without dashes; keys of the model,
// block-option and train tables that a command does not take are skipped (one
// experiment file serves every command), other unknown keys are errors naming
// the key. CLI11 2.1 ignores config files of subcommands, so main() expands the
// file into arguments before parsing (expand_config_file): options required on
// the command line may come from it.
void add_config_file_option(CLI::App* sub);

// Expands the chosen subcommand's --config FILE into options in `args`
// (argv without the program name), before parsing; see cli/config_file.cpp.
// Throws ConfigError for a missing file or a key no command or config table knows.
// Returns where each injected option came from ("--batch_size" -> "FILE:LINE"), for error messages.
std::map<std::string, std::string> expand_config_file(CLI::App& root, std::vector<std::string>& args);

// Reads every INT, UINT and FLOAT option under `root` strictly, before its other checks:
// decimal, finite and within 64 bits (CLI11 alone reads 010 as octal, clamps
// 99999999999999999999 to 2^63-1 and lets nan through a range), else a one-line
// "'abc' is not an integer; it must be >= 1".
void check_numeric_options(CLI::App& root);

// One line for a CLI11 parse error, with the fix: an unknown command or option
// with the closest one, a repeated option, a missing value or argument, a bad
// value (naming the config file and line it came from, per `origins`).
std::string parse_error_line(const CLI::ParseError& e, const CLI::App& root, const std::vector<std::string>& args,
                             const std::map<std::string, std::string>& origins);

}  // namespace hamgan::cli
