// `hamgan compare`: maps options onto CompareConfig and calls run_compare.
#include <unistd.h>

#include <climits>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "experiments/compare.h"

namespace hamgan::cli {
namespace {

FieldTable<CompareConfig> compare_fields() {
  using C = CompareConfig;
  return {
      member_field(int_field("steps", "Training steps per run (0: each config's own)", at_least(0)), &C::steps),
      member_field(int_field("seeds", "Runs per config (seeds 0..S-1)", at_least(1)), &C::seeds),
      member_field(required(string_field("out", "Results directory (run dirs, results.md/csv, plots)")), &C::out),
      member_field(int_field("eval_every", "Steps between evaluations, plus one at the last step (0: none at all; "
                                           "-1: steps/5, or the config's own without --steps)",
                             at_least(-1)),
                   &C::eval_every),
      member_field(int_field("eval_n", "Images per evaluation (0: config's own)", at_least(0)), &C::eval_n),
      member_field(int_field("module_batch", "Batch of the module-time measurement", at_least(1)), &C::module_batch),
      member_field(flag_field("report_only", "Write the report from existing run dirs without training"),
                   &C::report_only),
  };
}

}  // namespace

static CommandRegistrar compare_registrar("compare", [](CLI::App& root) {
  auto cfg = std::make_shared<CompareConfig>();
  auto* sub = root.add_subcommand("compare", "Train several experiment configs side by side and write a results report");
  add_config_file_option(sub);
  add_text_list(sub, "configs", cfg->configs, "Experiment TOML files to compare", true, existing_file());
  add_field_options(sub, compare_fields(), *cfg, "Options");
  add_text_list(sub, "train_args", cfg->train_args,
                "Extra `hamgan train` options for every run, e.g. --train_args=--threads=2", false);
  on_run(sub, [cfg] {
    char exe[PATH_MAX] = {0};
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    cfg->hamgan_exe = n > 0 ? std::string(exe, static_cast<size_t>(n)) : "hamgan";
    const std::string report = run_compare(*cfg);
    std::cout << "compare: report in " << report << "\n";
  });
});

}  // namespace hamgan::cli
