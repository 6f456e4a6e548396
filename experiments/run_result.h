#pragma once
// One `hamgan compare` training run's numbers, read back from its run
// directory, and their aggregate over seeds (docs/compare.md).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hamgan {

// Written into a run directory when its run finished cleanly: flat JSON numbers
// (steps, peak_rss_mb, wall_s).
inline constexpr const char* kRunMarker = "compare_run.json";

// The marker's numbers; empty when the run has not finished.
std::map<std::string, double> read_run_marker(const std::string& run_dir);

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
  // How the final FID was measured: the label protocol and the evaluation row's
  // protocol of fid_key ("" when the log has none, e.g. a run of an older release).
  std::string fid_protocol;
};

// The protocol of the last evaluation row of `key` in a metrics log, with its label
// protocol: "labels balanced; fid_classifier: classifier sha256 …, 1000 generated"
// ("" when no row has one; logs without `labels` were balanced).
std::string final_fid_protocol(const std::string& metrics_log, const std::string& key);

// "" when every run's FID was measured under one protocol; otherwise one line
// naming two runs and both protocols (`hamgan compare` refuses such a table).
std::string protocol_conflict(const std::vector<RunResult>& runs);

// Aggregate over seeds: best (lowest FID), mean and sample standard deviation.
struct SeedSummary {
  double best = 0, mean = 0, std = 0;
  int64_t n = 0;
};
SeedSummary summarize(const std::vector<double>& values, bool lower_is_better);

// Reads a finished run directory (metrics.jsonl, compare_run.json, checkpoints).
RunResult read_run_result(const std::string& name, uint64_t seed, const std::string& run_dir, int64_t module_batch);

}  // namespace hamgan
