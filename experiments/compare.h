#pragma once
// `hamgan compare`: trains each experiment configuration for each seed (each
// run a `hamgan train` child process in its own run directory, finished runs
// skipped and interrupted ones resumed), then writes a side-by-side report:
// results.md, results.csv, results_pairwise.csv, fid_vs_steps.png and
// samples_<name>.png, with FID intervals and tests between configs.
#include <cstdint>
#include <string>
#include <vector>

namespace hamgan {

struct CompareConfig {
  std::vector<std::string> configs;  // experiment TOML files, one per compared cell
  int64_t steps = 0;                 // training steps per run; 0 = each config's own
  int64_t seeds = 1;                 // runs per config, seeds 0 .. seeds-1
  std::string out;                   // results directory, e.g. results/fmnist
  int64_t eval_every = -1;           // steps between evaluations; 0 = off; -1 = steps / 5 (or the config's own)
  int64_t eval_n = 0;                // images per evaluation; 0 = the config's own
  std::vector<std::string> train_args;  // extra `hamgan train` overrides for every run ("--threads=2", ...)
  std::string hamgan_exe;            // the hamgan executable that runs `train`
  int64_t module_batch = 16;         // batch of the module-time measurement at the block's GAN shape
  bool report_only = false;          // skip training; report on what the run directories hold
};

// Runs everything and writes the report (experiments/compare_report.h); returns the path of results.md.
std::string run_compare(const CompareConfig& config);

}  // namespace hamgan
