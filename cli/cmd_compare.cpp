// `hamgan compare`: maps options onto CompareConfig and calls run_compare.
#include <unistd.h>

#include <climits>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "experiments/compare.h"

namespace hamgan::cli {

static CommandRegistrar compare_registrar("compare", [](CLI::App& root) {
  auto cfg = std::make_shared<CompareConfig>();
  auto* sub = root.add_subcommand("compare", "Train several experiment configs side by side and write a results report");
  add_config_file_option(sub);
  CompareConfig& c = *cfg;
  sub->add_option("--configs", c.configs, "Experiment TOML files to compare")->required()->check(CLI::ExistingFile);
  sub->add_option("--steps", c.steps, "Training steps per run (0: each config's own)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--seeds", c.seeds, "Runs per config (seeds 0..S-1)")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--out", c.out, "Results directory (run dirs, results.md/csv, plots)")->required();
  sub->add_option("--eval_every", c.eval_every, "Steps between evaluations (0: off; -1: steps/5, or the config's own without --steps)")->check(CLI::Range(int64_t{-1}, int64_t{1} << 40))->capture_default_str();
  sub->add_option("--eval_n", c.eval_n, "Images per evaluation (0: config's own)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--train_args", c.train_args, "Extra `hamgan train` options for every run, e.g. --train_args=--threads=2");
  sub->add_option("--module_batch", c.module_batch, "Batch of the module-time measurement")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_flag("--report_only", c.report_only, "Write the report from existing run dirs without training");
  sub->callback([cfg] {
    char exe[PATH_MAX] = {0};
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    cfg->hamgan_exe = n > 0 ? std::string(exe, static_cast<size_t>(n)) : "hamgan";
    const std::string report = run_compare(*cfg);
    std::cout << "compare: report in " << report << "\n";
  });
});

}  // namespace hamgan::cli
