#include "gan/step/steps.h"

#include "core/errors.h"
#include "gan/step/update_guard.h"

namespace hamgan {
namespace {

void set_requires_grad(torch::nn::Module& m, bool on) {
  for (auto& p : m.parameters()) p.set_requires_grad(on);
}

int64_t checked_accumulate(int64_t batch, const StepConfig& cfg) {
  if (cfg.accumulate < 1 || batch % cfg.accumulate != 0)
    throw ConfigError("accumulate: a batch of " + std::to_string(batch) + " images does not split into " +
                      std::to_string(cfg.accumulate) + " equal micro-batches; choose a batch_size it divides");
  return cfg.accumulate;
}

void mark(const StepConfig& cfg, StepPhase phase) {
  if (cfg.marks != nullptr) cfg.marks->phase_done(phase);
}

// The optimiser's update, skipped on the device where the guard finds a non-finite value.
void apply_update(FusedAdam& opt, UpdateGuard& guard, torch::nn::Module& m, const torch::Tensor& loss,
                  GradSync& sync, StepStats& stats) {
  if (!guard.enabled()) {
    opt.step();
    return;
  }
  const torch::Tensor skip = guard.nonfinite(m, loss, sync);
  opt.step_unless(skip);
  stats.skipped = stats.skipped.defined() ? stats.skipped + skip : skip;
}

}  // namespace

const char* step_phase_name(size_t phase) {
  static const char* names[kStepPhaseCount] = {"d_forward", "d_backward", "d_optimiser",
                                               "g_forward", "g_backward", "g_optimiser"};
  return phase < kStepPhaseCount ? names[phase] : "?";
}

std::pair<torch::Tensor, torch::Tensor> draw_noise(StepState& state, int64_t n, const StepConfig& cfg) {
  const int64_t total = n * cfg.slice.count, from = n * cfg.slice.index;
  // Drawn on the CPU, so CPU and CUDA runs see the same z (randn and randint are
  // these very empty + normal_ / random_ calls), into pinned memory on CUDA so that
  // the copies to the device are queued without the host waiting for them.
  const auto host = torch::TensorOptions().pinned_memory(state.device.is_cuda());
  const torch::Tensor z = torch::empty({total, state.model.z_dim}, host).normal_(0, 1, state.noise);
  const torch::Tensor y = torch::empty({total}, host.dtype(torch::kLong)).random_(0, state.model.num_classes, state.noise);
  return {z.slice(0, from, from + n).to(state.device, /*non_blocking=*/true),
          y.slice(0, from, from + n).to(state.device, /*non_blocking=*/true)};
}

void d_step(StepState& state, const BatchSource& next_batch, const StepConfig& cfg, GradSync& sync, StepStats& stats) {
  set_requires_grad(*state.d, true);
  for (int64_t step = 0; step < cfg.d_steps; ++step) {
    const Batch batch = next_batch();
    const int64_t b = batch.images.size(0), k = checked_accumulate(b, cfg);
    // uint8 bytes cross to the device (pinned, non-blocking on CUDA) and become floats there.
    const torch::Tensor real_all = cfg.precision.layout(model_images(batch, state.device));
    const torch::Tensor y_real_all = batch.labels.to(state.device, /*non_blocking=*/true);
    UpdateGuard guard(state, cfg.skip_nonfinite);
    const auto [z_all, y_fake_all] = draw_noise(state, b, cfg);
    state.objective.begin_d_update(state.step * cfg.d_steps + step, real_all, y_real_all, state.noise, cfg.slice);
    state.d_opt->zero_grad();
    torch::Tensor total_loss, real_mean, fake_mean;
    for (int64_t m = 0; m < k; ++m) {
      DLoss out = state.objective.d_loss(state.g, state.d, micro_batch(real_all, m, k), micro_batch(y_real_all, m, k),
                                         micro_batch(z_all, m, k), micro_batch(y_fake_all, m, k), m, k,
                                         cfg.precision, sync, state.world_size);
      if (k > 1) out.loss = out.loss / static_cast<double>(k);  // the k means add up to the batch's mean
      if (m == k - 1) sync.before_backward(*state.d);            // reduce once, with the summed gradients
      mark(cfg, kDForward);
      out.loss.backward();
      mark(cfg, kDBackward);
      const torch::Tensor r = out.on_real.detach().mean(), f = out.on_fake.detach().mean();
      total_loss = m == 0 ? out.loss.detach() : total_loss + out.loss.detach();
      real_mean = m == 0 ? r : real_mean + r;
      fake_mean = m == 0 ? f : fake_mean + f;
    }
    sync.all_reduce_grads(*state.d);
    apply_update(*state.d_opt, guard, *state.d, total_loss, sync, stats);
    state.objective.end_d_update(sync, b * state.world_size);
    mark(cfg, kDOptimiser);
    stats.d_loss = total_loss;
    stats.d_real = k > 1 ? real_mean / static_cast<double>(k) : real_mean;
    stats.d_fake = k > 1 ? fake_mean / static_cast<double>(k) : fake_mean;
  }
  set_requires_grad(*state.d, false);
}

void g_step(StepState& state, const StepConfig& cfg, GradSync& sync, StepStats& stats) {
  const auto [z_all, y_all] = draw_noise(state, cfg.batch_size, cfg);
  state.objective.begin_g_update(cfg.batch_size, state.noise, cfg.slice);
  const int64_t k = checked_accumulate(cfg.batch_size, cfg);
  UpdateGuard guard(state, cfg.skip_nonfinite);
  state.g_opt->zero_grad();
  torch::Tensor total_loss;
  for (int64_t m = 0; m < k; ++m) {
    torch::Tensor loss = state.objective.g_loss(state.g, state.d, micro_batch(z_all, m, k), micro_batch(y_all, m, k),
                                                m, k, cfg.precision);
    if (k > 1) loss = loss / static_cast<double>(k);
    if (m == k - 1) sync.before_backward(*state.g);
    mark(cfg, kGForward);
    loss.backward();
    mark(cfg, kGBackward);
    total_loss = m == 0 ? loss.detach() : total_loss + loss.detach();
  }
  sync.all_reduce_grads(*state.g);
  apply_update(*state.g_opt, guard, *state.g, total_loss, sync, stats);
  mark(cfg, kGOptimiser);
  stats.g_loss = total_loss;
}

void ema_step(StepState& state, const EmaSchedule& schedule) {
  if (!state.g_ema) return;
  if (!state.ema_updater) state.ema_updater = std::make_shared<EmaUpdater>(*state.g, *state.g_ema);
  state.ema_updater->update(ema_decay_at(state.step, schedule.start, schedule.decay));
}

}  // namespace hamgan
