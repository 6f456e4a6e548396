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
#include "gan/train/ema.h"
#include "gan/train/run_setup.h"
#include "gan/train/steps.h"
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
    return {torch::rand({batch, channels, side, side}, on_device) * 2 - 1,
            torch::randint(0, classes, {batch}, on_device.dtype(torch::kLong))};
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

void set_requires_grad(torch::nn::Module& m, bool on) {
  for (auto& p : m.parameters()) p.set_requires_grad(on);
}

// One training step as the trainer runs it (gan/train/trainer.cpp), data read first.
void timed_step(TrainState& state, BenchData& data, const StepConfig& step_cfg, const EmaSchedule& ema,
                StageTimer& timer) {
  static NoSync no_sync;
  StepStats stats;
  timer.restart();
  std::vector<Batch> batches;
  for (int64_t k = 0; k < step_cfg.d_steps; ++k) batches.push_back(data.next());
  size_t at = 0;
  timer.lap(kStepData);
  d_step(state, [&] { return batches[at++]; }, step_cfg, no_sync, stats);
  timer.lap(kStepD);
  g_step(state, step_cfg, no_sync, stats);
  ++state.step;
  timer.lap(kStepG);
  ema_step(state, ema);
  timer.lap(kStepEma);
}

// The same D and G updates as d_step / g_step, with boundaries between
// forward, backward and optimiser (data time is not charged); under gradient
// accumulation each phase sums its micro-batches.
void split_step(TrainState& state, BenchData& data, const StepConfig& step_cfg, StageTimer& timer) {
  const int64_t k = step_cfg.accumulate;
  const double scale = 1.0 / static_cast<double>(k);
  set_requires_grad(*state.d, true);
  for (int64_t step = 0; step < step_cfg.d_steps; ++step) {
    const Batch batch = data.next();
    timer.restart();
    const torch::Tensor real_all = step_cfg.precision.layout(batch.images.to(state.device));
    const torch::Tensor y_real_all = batch.labels.to(state.device);
    const auto [z_all, y_fake_all] = draw_noise(state, real_all.size(0), step_cfg);
    state.d_opt->zero_grad();
    for (int64_t m = 0; m < k; ++m) {
      const torch::Tensor real = micro_batch(real_all, m, k), y_real = micro_batch(y_real_all, m, k);
      const torch::Tensor z = micro_batch(z_all, m, k), y_fake = micro_batch(y_fake_all, m, k);
      const int64_t b = real.size(0);
      torch::Tensor fake, logits;
      {
        PrecisionScope scope(step_cfg.precision);
        {
          torch::NoGradGuard no_grad;
          fake = state.g->forward(z, y_fake);
        }
        logits = state.d->forward(torch::cat({real, fake}), torch::cat({y_real, y_fake})).to(torch::kFloat);
      }
      const torch::Tensor loss = discriminator_loss(step_cfg.loss, logits.slice(0, 0, b), logits.slice(0, b)) * scale;
      timer.lap(kSplitDForward);
      loss.backward();
      timer.lap(kSplitDBackward);
    }
    state.d_opt->step();
    timer.lap(kSplitDOptimiser);
  }
  set_requires_grad(*state.d, false);
  timer.restart();
  const auto [z_all, y_all] = draw_noise(state, step_cfg.batch_size, step_cfg);
  state.g_opt->zero_grad();
  for (int64_t m = 0; m < k; ++m) {
    const torch::Tensor z = micro_batch(z_all, m, k), y = micro_batch(y_all, m, k);
    torch::Tensor logits;
    {
      PrecisionScope scope(step_cfg.precision);
      logits = state.d->forward(state.g->forward(z, y), y).to(torch::kFloat);
    }
    const torch::Tensor loss = generator_loss(step_cfg.loss, logits) * scale;
    timer.lap(kSplitGForward);
    loss.backward();
    timer.lap(kSplitGBackward);
  }
  state.g_opt->step();
  timer.lap(kSplitGOptimiser);
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

template <size_t N>
std::array<double, N> mean_ms(const std::vector<double>& seconds, int64_t steps) {
  std::array<double, N> ms{};
  for (size_t i = 0; i < N; ++i) ms[i] = 1000.0 * seconds[i] / static_cast<double>(steps);
  return ms;
}

}  // namespace

TrainBenchResult run_train_bench(const TrainBenchConfig& c, std::ostream& out) {
  if (c.steps < 1) throw ConfigError("bench train: --steps must be >= 1, got " + std::to_string(c.steps));
  if (c.warmup < 0) throw ConfigError("bench train: --warmup must be >= 0, got " + std::to_string(c.warmup));
  const TrainConfig& cfg = c.train;
  cfg.validate();
  const torch::Device device = resolve_device(cfg.device);
  const Precision precision = resolve_precision(cfg.precision, cfg.channels_last, device);
  StepConfig step_cfg{cfg.loss, cfg.d_steps, cfg.batch_size, precision};
  step_cfg.accumulate = cfg.accumulate;
  const EmaSchedule ema{cfg.ema_decay, cfg.ema_start};

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

  StageTimer warm_timer(device, kStepPhaseCount);
  for (int64_t i = 0; i < c.warmup; ++i) timed_step(state, data, step_cfg, ema, warm_timer);
  synchronize(device);

  StageTimer step_timer(device, kStepPhaseCount);
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  for (int64_t i = 0; i < c.steps; ++i) timed_step(state, data, step_cfg, ema, step_timer);
  synchronize(device);
  r.step_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.step_cpu_seconds = process_cpu_seconds() - cpu_start;
  r.step_ms = mean_ms<kStepPhaseCount>(step_timer.seconds(), c.steps);
  r.its_per_s = static_cast<double>(c.steps) / r.step_seconds;
  r.images_per_s = r.its_per_s * static_cast<double>(cfg.batch_size * cfg.d_steps);

  StageTimer split_timer(device, kSplitPhaseCount);
  for (int64_t i = 0; i < c.steps; ++i) split_step(state, data, step_cfg, split_timer);
  r.split_ms = mean_ms<kSplitPhaseCount>(split_timer.seconds(), c.steps);

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
