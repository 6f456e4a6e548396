#pragma once
// Subcommands register themselves at static-initialisation time, so adding one
// is a new cli/cmd_*.cpp file and nothing else. Each command only maps options
// onto a library config struct and calls one library function.
#include <CLI/CLI.hpp>
#include <functional>
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
void expand_config_file(CLI::App& root, std::vector<std::string>& args);

}  // namespace hamgan::cli
