#include "gan/train/steps.h"

#include "gan/train/ema.h"
#include "gan/train/update_guard.h"

namespace hamgan {
namespace {

void set_requires_grad(torch::nn::Module& m, bool on) {
  for (auto& p : m.parameters()) p.set_requires_grad(on);
}

}  // namespace

std::pair<torch::Tensor, torch::Tensor> draw_noise(TrainState& state, int64_t n, const StepConfig& cfg) {
  const int64_t total = n * cfg.noise_slices, from = n * cfg.noise_slice;
  const torch::Tensor z = torch::randn({total, state.model.z_dim}, state.noise).slice(0, from, from + n);
  const torch::Tensor y = torch::randint(0, state.model.num_classes, {total}, state.noise, torch::kLong).slice(0, from, from + n);
  return {z.to(state.device), y.to(state.device)};
}

void d_step(TrainState& state, const BatchSource& next_batch, const StepConfig& cfg, GradSync& sync, StepStats& stats) {
  set_requires_grad(*state.d, true);
  for (int64_t k = 0; k < cfg.d_steps; ++k) {
    const Batch batch = next_batch();
    const int64_t b = batch.images.size(0);
    const torch::Tensor real = cfg.precision.layout(batch.images.to(state.device));
    const torch::Tensor y_real = batch.labels.to(state.device);
    UpdateGuard guard(state, cfg.skip_nonfinite);
    const auto [z, y_fake] = draw_noise(state, b, cfg);
    torch::Tensor fake;
    {
      torch::NoGradGuard no_grad;
      PrecisionScope precision(cfg.precision);
      fake = state.g->forward(z, y_fake);
    }
    torch::Tensor logits;
    {
      // One D call on real and fake together: one spectral-norm power iteration per D update.
      PrecisionScope precision(cfg.precision);
      logits = state.d->forward(torch::cat({real, fake}), torch::cat({y_real, y_fake}));
    }
    logits = logits.to(torch::kFloat);  // losses in float32 whatever the forward computed in
    const torch::Tensor on_real = logits.slice(0, 0, b), on_fake = logits.slice(0, b);
    const torch::Tensor loss = discriminator_loss(cfg.loss, on_real, on_fake);
    state.d_opt->zero_grad();
    sync.before_backward(*state.d);
    loss.backward();
    sync.all_reduce_grads(*state.d);
    if (guard.update_is_finite(*state.d, loss))
      state.d_opt->step();
    else
      ++stats.skipped_updates;
    stats.d_loss = loss.detach();
    stats.d_real = on_real.detach().mean();
    stats.d_fake = on_fake.detach().mean();
  }
  set_requires_grad(*state.d, false);
}

void g_step(TrainState& state, const StepConfig& cfg, GradSync& sync, StepStats& stats) {
  const auto [z, y_fake] = draw_noise(state, cfg.batch_size, cfg);
  UpdateGuard guard(state, cfg.skip_nonfinite);
  torch::Tensor logits;
  {
    PrecisionScope precision(cfg.precision);
    logits = state.d->forward(state.g->forward(z, y_fake), y_fake);
  }
  const torch::Tensor loss = generator_loss(cfg.loss, logits.to(torch::kFloat));
  state.g_opt->zero_grad();
  sync.before_backward(*state.g);
  loss.backward();
  sync.all_reduce_grads(*state.g);
  if (guard.update_is_finite(*state.g, loss))
    state.g_opt->step();
  else
    ++stats.skipped_updates;
  stats.g_loss = loss.detach();
}

void ema_step(TrainState& state, const EmaSchedule& schedule) {
  if (state.g_ema) ema_update(*state.g, *state.g_ema, ema_decay_at(state.step, schedule.start, schedule.decay));
}

}  // namespace hamgan
