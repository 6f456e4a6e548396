#pragma once
// `hamgan bench modules`: the columns of the paper's Table 3 for each context
// block — parameters, MACs, peak memory and time for inference (forward, eval,
// no autograd) and training (forward + backward in train mode).
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "modules/context_block.h"
#include "modules/ham_block.h"

namespace hamgan {

struct ModuleBenchConfig {
  std::vector<int64_t> shape{1, 512, 64, 64};  // N, C, H, W (paper: 1,512,128,128; GAN G: 256,256,32,32)
  std::string device = "cpu";                  // auto | cpu | cuda | cuda:N (core/device.h)
  // Registered block names; "ham:<type>" picks the ham type (nmf | vq | cd).
  std::vector<std::string> blocks{"none", "sa", "ham:nmf", "ham:cd"};
  int64_t warmup = 2;   // untimed iterations before measuring
  int64_t repeats = 5;  // timed iterations; the median is reported
  int64_t threads = 0;  // CPU threads for LibTorch; 0 keeps its default
  // wall: elapsed time; cpu: process CPU time over all threads (CPU device only), which a
  // machine shared with other jobs disturbs far less than wall time.
  std::string clock = "wall";
  std::string out;      // JSON results file; empty: none
  HamOptions ham;       // ham settings (steps, rank, gradient, ...) for "ham" rows; no CBN
};

struct ModuleBenchResult {
  std::string block;
  int64_t params = 0;            // learnable scalars (spectral-norm u vectors and BN statistics excluded)
  int64_t macs = 0;              // multiply-accumulates of one forward, the block's registered count (module_macs)
  double fwd_ms = 0;             // median inference time
  double train_ms = 0;           // median forward + backward time
  int64_t peak_bytes_fwd = 0;    // peak live tensor bytes above the input, inference
  int64_t peak_bytes_train = 0;  // same for forward + backward (incl. input and parameter gradients)
};

// Runs the benchmark, printing progress lines to `log`, writes config.out when set, and returns the rows.
std::vector<ModuleBenchResult> bench_modules(const ModuleBenchConfig& config, std::ostream& log);

// Markdown table of the results, plus SA-relative ratios when an "sa" row is present
// (bench_modules_report.cpp, as the JSON below).
std::string format_bench_table(const std::vector<ModuleBenchResult>& results);
// JSON list of objects with keys block, params, macs, fwd_ms, train_ms, peak_bytes_fwd, peak_bytes_train.
std::string bench_results_json(const std::vector<ModuleBenchResult>& results);

// Runs `hamgan bench modules` end to end: bench_modules, table on `out`.
void run_bench_modules(const ModuleBenchConfig& config, std::ostream& out);

}  // namespace hamgan
