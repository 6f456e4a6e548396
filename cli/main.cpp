// hamgan: the command-line entry point. Parsing only; work happens in the library.
#include <c10/util/Exception.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "cli/command.h"
#include "core/build_info.h"
#include "core/errors.h"
#include "core/heap_policy.h"
#include "core/stop_signal.h"
#include "core/vector_math.h"

namespace hamgan::cli {

static std::map<std::string, CommandSetup>& registry() {
  static std::map<std::string, CommandSetup> commands;
  return commands;
}

CommandRegistrar::CommandRegistrar(const std::string& name, CommandSetup setup) {
  registry()[name] = std::move(setup);
}

// Library and LibTorch messages may span lines; the promise is one.
static std::string one_line(std::string s) {
  for (char& c : s) c = (c == '\n' || c == '\r') ? ' ' : c;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace hamgan::cli

using hamgan::cli::one_line;

int main(int argc, char** argv) {
  hamgan::keep_freed_heap_memory();  // before any tensor: steps reuse their pages (core/heap_policy.h)
  hamgan::warm_up_vector_math();     // repeatable tanh, exp, ... from the first call (core/vector_math.h)
  hamgan::set_command_line(argc, argv);
  CLI::App app{"HamGAN: class-conditional GANs with Hamburger, attention and YLG context blocks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hamgan 0.1.0");
  std::vector<std::string> args(argv + 1, argv + argc);
  // Ctrl-C, SIGTERM and SIGHUP stop every command at its next batch (exit 130,
  // nothing half-written); training checkpoints first.
  hamgan::StopSignalGuard signals;
  try {
    for (auto& [name, setup] : hamgan::cli::registry()) setup(app);
    std::vector<std::string> parse_args = args;
    std::reverse(parse_args.begin(), parse_args.end());  // CLI11 takes the vector back to front
    app.parse(parse_args);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --help-all, --version
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "hamgan: error: " << hamgan::cli::parse_error_line(e, app, args) << "\n";
    return 1;
  } catch (const hamgan::Interrupted& e) {
    std::cerr << "hamgan: stopped: " << e.what() << "\n";
    // As a shell reports a command ended by Ctrl-C; after SIGUSR1, the status a batch script requeues on.
    return hamgan::requeue_requested() ? hamgan::kRequeueExitStatus : 130;
  } catch (const c10::Error& e) {
    std::cerr << "hamgan: error: " << one_line(e.what_without_backtrace()) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "hamgan: error: " << one_line(e.what()) << "\n";
    return 1;
  } catch (...) {
    std::cerr << "hamgan: error: unexpected failure (not a std::exception); please report the command\n";
    return 1;
  }
  return hamgan::requeue_requested() ? hamgan::kRequeueExitStatus : 0;  // stopped on SIGUSR1, checkpointed
}
