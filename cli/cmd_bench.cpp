// `hamgan bench`: the parent of the benchmark subcommands (modules, data, fid),
// each registered from its own cmd_bench_*.cpp under the name "bench.<what>".
#include "cli/command.h"

namespace hamgan::cli {
static CommandRegistrar bench_registrar("bench", [](CLI::App& root) {
  auto* bench = root.add_subcommand("bench", "Benchmarks that print numbers (speed, memory)");
  bench->require_subcommand(1);
});
}  // namespace hamgan::cli
