#include "gan/train/train_bench.h"

#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <ostream>

#include "core/atomic_file.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/stage_timer.h"
#include "core/threads.h"
#include "gan/report/provenance.h"
#include "gan/step/ema.h"
#include "gan/train/run_setup.h"
#include "gan/train/step_settings.h"
#include "modules/memory_meter.h"

namespace hamgan {
namespace {

using Clock = std::chrono::steady_clock;

// Real batches from the config's dataset when it is there, else random images
// of the model's shape (an ImageNet config on a machine without its HDF5 file),
// drawn on the training device: they stand for a loader that keeps up, so the
// step is timed without a host-side draw of batch × 3 × 128² numbers.
struct BenchData {
  std::string description;
  std::unique_ptr<DataLoader> loader;
  int64_t batch = 0, channels = 0, side = 0, classes = 0;
  torch::Device device = torch::kCPU;

  Batch next() {
    if (loader) return loader->next();
    const auto on_device = torch::TensorOptions().device(device);
    return {torch::randint(0, 256, {batch, channels, side, side}, on_device.dtype(torch::kUInt8)),
            torch::randint(0, classes, {batch}, on_device.dtype(torch::kLong)),
            torch::zeros({batch}, on_device.dtype(torch::kBool))};
  }
};

BenchData open_bench_data(const TrainConfig& cfg, const torch::Device& device) {
  BenchData data;
  data.device = device;
  data.batch = cfg.batch_size;
  data.channels = cfg.model.image_channels;
  data.side = cfg.model.resolution;
  data.classes = cfg.model.num_classes;
  if (std::filesystem::exists(cfg.dataset)) {
    data.loader = std::make_unique<DataLoader>(open_training_data(cfg), loader_options(cfg));
    data.description = "real: " + cfg.dataset;
  } else {
    data.description = "synthetic: uniform random images (" + cfg.dataset + " not found)";
  }
  return data;
}

// Hands the step functions' phase ends to a StageTimer or an OpCounter, whose
// buckets are the bench phases (the step's phase p is bucket p + 1).
template <class Laps>
struct LapAtPhaseEnd : PhaseMarks {
  explicit LapAtPhaseEnd(Laps& l) : laps(l) {}
  void phase_done(StepPhase phase) override { laps.lap(1 + static_cast<size_t>(phase)); }
  Laps& laps;
};

// One training step as the trainer runs it (gan/train/trainer.cpp), data read
// first, with a boundary of `laps` at the end of every phase.
template <class Laps>
void bench_step(TrainState& state, BenchData& data, StepConfig step_cfg, const EmaSchedule& ema, Laps& laps) {
  static NoSync no_sync;
  LapAtPhaseEnd<Laps> marks(laps);
  step_cfg.marks = &marks;
  StepStats stats;
  laps.restart();
  std::vector<Batch> batches;
  for (int64_t k = 0; k < step_cfg.d_steps; ++k) batches.push_back(data.next());
  size_t at = 0;
  laps.lap(kBenchData);
  d_step(state, [&] { return batches[at++]; }, step_cfg, no_sync, stats);
  g_step(state, step_cfg, no_sync, stats);
  ++state.step;
  laps.restart();
  ema_step(state, ema);
  laps.lap(kBenchEma);
}

// CPU time of the whole process (all threads), in seconds.
double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

// Peak resident set of this process (Linux reports ru_maxrss in KiB).
int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

std::array<double, kBenchPhaseCount> mean_ms(const std::vector<double>& seconds, int64_t steps) {
  std::array<double, kBenchPhaseCount> ms{};
  for (size_t i = 0; i < kBenchPhaseCount; ++i) ms[i] = 1000.0 * seconds[i] / static_cast<double>(steps);
  return ms;
}

// Activations for the cast count: leading dimension a multiple of the micro-batch,
// shape not that of a parameter of G or D (core/op_traffic.h).
ActivationRule activation_rule(const StepState& state, const StepConfig& step_cfg) {
  ActivationRule rule;
  rule.batch = step_cfg.batch_size / step_cfg.accumulate;
  for (const torch::nn::Module* net : {static_cast<const torch::nn::Module*>(state.g.get()),
                                       static_cast<const torch::nn::Module*>(state.d.get())})
    for (const torch::Tensor& p : net->parameters()) rule.parameter_shapes.insert(p.sizes().vec());
  return rule;
}

// Kernels, host synchronisations, memory traffic and casts of `steps` more steps, by phase.
void profile_steps(TrainState& state, BenchData& data, const StepConfig& step_cfg, const EmaSchedule& ema,
                   int64_t steps, TrainBenchResult& r) {
  OpCounter counter(kBenchPhaseCount);
  counter.count_activation_casts(activation_rule(state, step_cfg));
  for (int64_t i = 0; i < steps; ++i) bench_step(state, data, step_cfg, ema, counter);
  const std::vector<OpCounts> counts = counter.counts();
  std::copy(counts.begin(), counts.end(), r.profile.begin());
  r.sync_ops = counter.sync_ops();
  r.by_op = counter.by_op();
  r.profile_steps = steps;
}

}  // namespace

TrainBenchResult run_train_bench(const TrainBenchConfig& c, std::ostream& out) {
  if (c.steps < 1) throw ConfigError("bench train: --steps must be >= 1, got " + std::to_string(c.steps));
  if (c.warmup < 0) throw ConfigError("bench train: --warmup must be >= 0, got " + std::to_string(c.warmup));
  const TrainConfig& cfg = c.train;
  cfg.validate();
  const torch::Device device = resolve_device(cfg.device);
  const Precision precision = resolve_precision(cfg.precision, cfg.channels_last, device);
  StepConfig step_cfg = step_config(cfg, cfg.batch_size, precision);
  step_cfg.skip_nonfinite = false;  // the bench measures the plain step
  // The steady state of a long run: the EMA past its first ema_start plain copies.
  const EmaSchedule ema{cfg.ema_decay, 0};

  TrainBenchResult r;
  r.threads = apply_thread_count(cfg.threads);
  r.device = device_name(device);
  r.device_name = device_description(device);
  r.torch_version = TORCH_VERSION;
  r.precision = precision.name();
  r.batch = cfg.batch_size;
  r.accumulate = cfg.accumulate;
  r.channels_last = precision.channels_last;
  r.steps = c.steps;
  r.warmup = c.warmup;

  // On CUDA the caching allocator's peak of live tensor bytes from before the
  // networks exist; on the CPU the process's peak resident set.
  std::unique_ptr<PeakMemoryMeter> cuda_meter;
  if (device.is_cuda()) cuda_meter = std::make_unique<PeakMemoryMeter>(device);
  seed_initial_weights(cfg.seed);
  TrainState state(cfg, device);
  apply_precision(precision, state);  // as the trainer sets up its run
  BenchData data = open_bench_data(cfg, device);
  r.data = data.description;
  print_train_bench_setup(r, out);

  StageTimer warm_timer(device, kBenchPhaseCount);
  for (int64_t i = 0; i < c.warmup; ++i) bench_step(state, data, step_cfg, ema, warm_timer);
  synchronize(device);

  StageTimer step_timer(device, kBenchPhaseCount);
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  for (int64_t i = 0; i < c.steps; ++i) bench_step(state, data, step_cfg, ema, step_timer);
  synchronize(device);
  r.step_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.step_cpu_seconds = process_cpu_seconds() - cpu_start;
  r.phase_ms = mean_ms(step_timer.seconds(), c.steps);
  r.its_per_s = static_cast<double>(c.steps) / r.step_seconds;
  r.images_per_s = r.its_per_s * static_cast<double>(cfg.batch_size * cfg.d_steps);

  if (c.profile) profile_steps(state, data, step_cfg, ema, c.steps, r);

  if (cuda_meter) {
    r.peak_memory_bytes = cuda_meter->peak_bytes();
    r.peak_memory_kind = "cuda caching allocator peak of live tensor bytes";
  } else {
    r.peak_memory_bytes = peak_rss_bytes();
    r.peak_memory_kind = "peak resident set size of the process";
  }

  print_train_bench_summary(r, out);
  if (!c.out.empty()) {
    write_text_atomically(c.out, train_bench_json(r));
    out << "wrote " << c.out << "\n";
  }
  return r;
}

}  // namespace hamgan
