// hamgan: the command-line entry point. Parsing only; work happens in the library.
#include <c10/util/Exception.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "cli/command.h"
#include "core/build_info.h"
#include "core/errors.h"

namespace hamgan::cli {

static std::map<std::string, CommandSetup>& registry() {
  static std::map<std::string, CommandSetup> commands;
  return commands;
}

CommandRegistrar::CommandRegistrar(const std::string& name, CommandSetup setup) {
  registry()[name] = std::move(setup);
}

}  // namespace hamgan::cli

int main(int argc, char** argv) {
  hamgan::set_command_line(argc, argv);
  CLI::App app{"HamGAN: class-conditional GANs with Hamburger, attention and YLG context blocks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hamgan 0.1.0");
  for (auto& [name, setup] : hamgan::cli::registry()) setup(app);
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    hamgan::cli::expand_config_file(app, args);
    std::reverse(args.begin(), args.end());  // CLI11 takes the vector back to front
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const c10::Error& e) {
    std::cerr << "hamgan: error: " << e.what_without_backtrace() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "hamgan: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
