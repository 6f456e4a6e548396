#pragma once
// `hamgan bench train`: training speed of one config. Builds the config's
// TrainState, runs warm-up steps, then times `steps` training steps made of the
// trainer's own d_step / g_step / ema_step, split into phases at the step
// functions' seam (PhaseMarks, gan/step/steps.h). With `profile`, as many steps
// again count the ATen kernels and host synchronisation points of each phase
// (core/op_counter.h).
#include <array>
#include <iosfwd>
#include <map>
#include <string>

#include "core/op_counter.h"
#include "gan/step/steps.h"
#include "gan/train/train_config.h"

namespace hamgan {

struct TrainBenchConfig {
  TrainConfig train;  // model, batch_size, dataset, device, threads, precision (when that key exists), ...
  int64_t steps = 20;   // timed steps
  int64_t warmup = 5;   // untimed steps before them
  std::string out;      // JSON file ("" = none)
  bool profile = false;  // count kernels and host synchronisations per step
};

// The phases of one bench step: reading the batch, the six of d_step and g_step, the EMA.
constexpr size_t kBenchData = 0, kBenchEma = kStepPhaseCount + 1, kBenchPhaseCount = kStepPhaseCount + 2;
const char* bench_phase_name(size_t phase);  // "data", "d_forward", ..., "g_optimiser", "ema"

struct TrainBenchResult {
  std::string device, device_name, torch_version, precision, data;  // data: where the real batches came from
  int64_t batch = 0, accumulate = 1, steps = 0, warmup = 0, threads = 0;
  bool channels_last = false;
  double step_seconds = 0;  // wall time of the timed steps (device synchronised at both ends)
  double step_cpu_seconds = 0;  // process CPU time (all threads) of the same steps: robust on a busy machine
  double its_per_s = 0, images_per_s = 0;  // images: batch · d_steps real images seen by D per step
  std::array<double, kBenchPhaseCount> phase_ms{};  // mean per step
  // With profile: counts over profile_steps steps, by bench phase, and each host synchronisation point seen.
  int64_t profile_steps = 0;
  std::array<OpCounts, kBenchPhaseCount> profile{};
  std::map<std::string, int64_t> sync_ops;
  std::map<std::string, OpCounts> by_op;  // the profiled steps' kernels, bytes and casts by op name
  int64_t peak_memory_bytes = 0;
  std::string peak_memory_kind;  // what peak_memory_bytes measures
};

// Throws ConfigError for bad settings (steps < 1, warmup < 0, a precision this build lacks).
TrainBenchResult run_train_bench(const TrainBenchConfig& config, std::ostream& out);

// The bench's report (gan/train/train_bench_report.cpp): what it prints before
// timing and after it, and the JSON file `out` names.
void print_train_bench_setup(const TrainBenchResult& r, std::ostream& out);
void print_train_bench_summary(const TrainBenchResult& r, std::ostream& out);
std::string train_bench_json(const TrainBenchResult& r);

}  // namespace hamgan
