// hamgan: the command-line entry point. Parsing only; work happens in the library.
#include <c10/util/Exception.h>

#include <iostream>
#include <map>

#include "cli/command.h"
#include "core/errors.h"

namespace hamgan::cli {

static std::map<std::string, CommandSetup>& registry() {
  static std::map<std::string, CommandSetup> commands;
  return commands;
}

CommandRegistrar::CommandRegistrar(const std::string& name, CommandSetup setup) {
  registry()[name] = std::move(setup);
}

void add_config_file_option(CLI::App* sub) {
  sub->set_config("--config", "", "TOML file of option values (command line overrides it)");
  sub->allow_config_extras(CLI::config_extras_mode::error);
}

}  // namespace hamgan::cli

int main(int argc, char** argv) {
  CLI::App app{"HamGAN: class-conditional GANs with Hamburger, attention and YLG context blocks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hamgan 0.1.0");
  for (auto& [name, setup] : hamgan::cli::registry()) setup(app);
  try {
    app.parse(argc, argv);
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
