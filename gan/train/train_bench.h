#pragma once
// `hamgan bench train`: training speed of one config. Builds the config's
// TrainState, runs warm-up steps, then times `steps` training steps made of the
// trainer's own d_step / g_step / ema_step, and afterwards the same number of
// steps again, split by the bench into forward, backward and optimiser phases
// of D and G (same modules, same losses; the step functions stay untouched).
#include <array>
#include <iosfwd>
#include <string>

#include "gan/train/train_config.h"

namespace hamgan {

struct TrainBenchConfig {
  TrainConfig train;  // model, batch_size, dataset, device, threads, precision (when that key exists), ...
  int64_t steps = 20;   // timed steps
  int64_t warmup = 5;   // untimed steps before them
  std::string out;      // JSON file ("" = none)
};

// The phases of one step, timed on the trainer's step functions.
enum TrainStepPhase : size_t { kStepData, kStepD, kStepG, kStepEma, kStepPhaseCount };
// The bench's own split of the same work.
enum TrainSplitPhase : size_t {
  kSplitDForward,  // G(z) without gradients, D(real ‖ fake), D loss
  kSplitDBackward,
  kSplitDOptimiser,
  kSplitGForward,  // D(G(z)), G loss
  kSplitGBackward,
  kSplitGOptimiser,
  kSplitPhaseCount
};
const char* train_step_phase_name(size_t phase);   // "data", "d_step", "g_step", "ema_step"
const char* train_split_phase_name(size_t phase);  // "d_forward", ..., "g_optimiser"

struct TrainBenchResult {
  std::string device, device_name, torch_version, precision, data;  // data: where the real batches came from
  int64_t batch = 0, accumulate = 1, steps = 0, warmup = 0, threads = 0;
  bool channels_last = false;
  double step_seconds = 0;  // wall time of the timed steps (device synchronised at both ends)
  double step_cpu_seconds = 0;  // process CPU time (all threads) of the same steps: robust on a busy machine
  double its_per_s = 0, images_per_s = 0;  // images: batch · d_steps real images seen by D per step
  std::array<double, kStepPhaseCount> step_ms{};    // mean per step
  std::array<double, kSplitPhaseCount> split_ms{};  // mean per step
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
