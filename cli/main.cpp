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

// CLI11 2.1 reads a config file only for the top-level app, so a subcommand
// loads its own once its arguments are parsed: each top-level key fills the
// option of that long name unless the command line gave it; an unknown key or
// a [section] is an error naming it.
static void load_config_file(CLI::App* sub) {
  auto* config = sub->get_config_ptr();
  if (config == nullptr || config->count() == 0) return;
  const auto path = config->as<std::string>();
  if (CLI::detail::check_path(path.c_str()) != CLI::detail::path_type::file) throw hamgan::ConfigError("--config " + path + ": no such file");
  for (const auto& item : sub->get_config_formatter_base()->from_file(path)) {
    if (item.name == "++" || item.name == "--") continue;  // CLI11's section enter/leave markers
    if (!item.parents.empty())
      throw hamgan::ConfigError(path + ": [" + CLI::detail::join(item.parents, ".") + "] sections are not supported; " +
                             "use top-level keys (key " + item.fullname() + ")");
    CLI::Option* opt = sub->get_option_no_throw("--" + item.name);
    if (opt == nullptr || opt == config)
      throw hamgan::ConfigError(path + ": unknown key '" + item.name + "' for '" + sub->get_name() +
                             "'; see '" + sub->get_name() + " --help' for the keys (long option names)");
    if (opt->count() > 0) continue;  // the command line wins
    opt->add_result(item.inputs);
    opt->run_callback();
  }
}

void add_config_file_option(CLI::App* sub) {
  sub->set_config("--config", "", "TOML file of option values (command line overrides it)");
  sub->allow_config_extras(CLI::config_extras_mode::error);
  sub->parse_complete_callback([sub] { load_config_file(sub); });
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
