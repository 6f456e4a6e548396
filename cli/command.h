#pragma once
// Subcommands register themselves at static-initialisation time, so adding one
// is a new cli/cmd_*.cpp file and nothing else. Each command only maps options
// onto a library config struct and calls one library function.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace hamgan::cli {

using CommandSetup = std::function<void(CLI::App& root)>;

struct CommandRegistrar {
  CommandRegistrar(const std::string& name, CommandSetup setup);
};

// Every subcommand accepts --config FILE (TOML); command-line values override
// the file and unknown keys in the file are errors naming the key. The file is
// loaded from the subcommand's parse_complete_callback (CLI11 2.1 ignores config
// files of subcommands), so do not set another parse_complete_callback on it.
void add_config_file_option(CLI::App* sub);

}  // namespace hamgan::cli
