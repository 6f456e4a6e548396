#include "gan/step/step_state.h"

#include "core/finite.h"

namespace hamgan {
namespace {

std::unique_ptr<FusedAdam> make_adam(torch::nn::Module& m, double lr, const AdamSettings& a) {
  return std::make_unique<FusedAdam>(m.parameters(), torch::optim::AdamOptions(lr).betas({a.beta1, a.beta2}).eps(a.eps));
}

}  // namespace

StepState::StepState(const ModelConfig& model_, torch::Device device_, const AdamSettings& adam, bool ema,
                     const ObjectiveConfig& objective_, at::Generator noise_)
    : model(model_), device(device_), noise(std::move(noise_)), objective(objective_, model_.resolution, device_) {
  g = Generator(model);
  d = Discriminator(model);
  g->to(device);
  d->to(device);
  if (ema) {
    g_ema = Generator(model);
    g_ema->to(device);
    ema_update(*g, *g_ema, 0.0);
    g_ema->eval();
  }
  g_opt = make_adam(*g, adam.g_lr, adam);
  d_opt = make_adam(*d, adam.d_lr, adam);
}

void StepState::set_learning_rates(double g_lr, double d_lr) {
  for (auto& group : g_opt->param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(g_lr);
  for (auto& group : d_opt->param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(d_lr);
}

bool StepState::all_finite() const {
  return first_nonfinite_tensor(*g, /*buffers=*/false).empty() && first_nonfinite_tensor(*d, false).empty();
}

}  // namespace hamgan
