#pragma once
// `hamgan compare`: trains each experiment configuration for each seed (each
// run a `hamgan train` child process in its own run directory, finished runs
// skipped and interrupted ones resumed), then writes a side-by-side report:
// results.md, results.csv, results_pairwise.csv, fid_vs_steps.png and
// samples_<name>.png, with FID intervals and tests between configs.
#include <cstdint>
#include <map>
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

// One training run's numbers, read back from its run directory.
struct RunResult {
  std::string name;       // config file stem, e.g. fmnist_ham
  uint64_t seed = 0;
  std::string run_dir;
  std::string block;      // describe() of G's context block
  int64_t g_params = 0, d_params = 0;
  double module_ms = 0;   // forward+backward of G's context block at its GAN shape (median)
  double it_per_s = 0;    // mean training speed over the run's logged rows
  double peak_rss_mb = 0; // peak resident memory of the training process
  int64_t steps = 0;      // steps completed
  double fid = -1;        // final FID (negative: not measured)
  std::string fid_key;    // which metrics key held it (fid_classifier, fid_inception, ...)
  double class_consistency = -1;  // final class-consistency (negative: not measured)
  std::vector<std::pair<int64_t, double>> fid_curve;  // (step, FID) over the run
};

// Aggregate over seeds: best (lowest FID), mean and sample standard deviation.
struct SeedSummary {
  double best = 0, mean = 0, std = 0;
  int64_t n = 0;
};
SeedSummary summarize(const std::vector<double>& values, bool lower_is_better);

// Reads a finished run directory (metrics.jsonl, compare_run.json, checkpoints).
RunResult read_run_result(const std::string& name, uint64_t seed, const std::string& run_dir, int64_t module_batch);

// Writes results.md, results.csv, results_pairwise.csv and fid_vs_steps.png into `out`; returns the Markdown.
std::string write_compare_report(const std::vector<RunResult>& runs, const std::string& out);

// Runs everything and writes the report; returns the path of results.md.
std::string run_compare(const CompareConfig& config);

}  // namespace hamgan
