#include "gan/step/fused_adam.h"

#include "core/errors.h"

namespace hamgan {

using torch::optim::AdamOptions;
using torch::optim::AdamParamState;

FusedAdam::FusedAdam(const std::vector<torch::Tensor>& params, const AdamOptions& options)
    : torch::optim::Adam(params, options) {
  if (options.amsgrad()) throw ConfigError("FusedAdam: amsgrad is not supported; use amsgrad = false");
}

torch::Tensor FusedAdam::step(LossClosure closure) {
  torch::Tensor loss;
  if (closure) {
    torch::AutoGradMode grad(true);
    loss = closure();
  }
  update(c10::nullopt);
  return loss;
}

void FusedAdam::step_unless(const torch::Tensor& skip) { update(skip); }

void FusedAdam::update(const c10::optional<torch::Tensor>& skip) {
  torch::NoGradGuard no_grad;
  if (!steps_.defined()) load_steps();  // before the host counts below move
  // Counted first, as the kernel reads the step of the update it makes; a skipped update counts nothing.
  if (skip) steps_.sub_(*skip);
  steps_.add_(1);
  for (auto& group : param_groups()) {
    const auto& o = static_cast<const AdamOptions&>(group.options());
    std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& slot = state()[p.unsafeGetTensorImpl()];
      if (!slot) {  // as LibTorch's Adam starts a parameter's state
        auto fresh = std::make_unique<AdamParamState>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        slot = std::move(fresh);
      }
      auto& s = static_cast<AdamParamState&>(*slot);
      if (!skip) s.step(s.step() + 1);  // known on the host unless the device may skip the update
      params.push_back(p);
      grads.push_back(p.grad());
      exp_avgs.push_back(s.exp_avg());
      exp_avg_sqs.push_back(s.exp_avg_sq());
    }
    if (params.empty()) continue;
    const std::vector<torch::Tensor> state_steps(params.size(), steps_);
    at::_fused_adam_(params, grads, exp_avgs, exp_avg_sqs, /*max_exp_avg_sqs=*/{}, state_steps, o.lr(),
                     std::get<0>(o.betas()), std::get<1>(o.betas()), o.weight_decay(), o.eps(), /*amsgrad=*/false,
                     /*maximize=*/false, /*grad_scale=*/c10::nullopt, skip);
  }
}

void FusedAdam::store_steps() {
  if (!steps_.defined()) return;
  const auto count = static_cast<int64_t>(steps_.item<float>());
  for (auto& [key, slot] : state()) static_cast<AdamParamState&>(*slot).step(count);
}

void FusedAdam::load_steps() {
  int64_t count = 0;
  for (auto& [key, slot] : state()) count = std::max(count, static_cast<AdamParamState&>(*slot).step());
  torch::Device device = torch::kCPU;
  for (auto& group : param_groups())
    if (!group.params().empty()) device = group.params().front().device();
  steps_ = torch::full({}, static_cast<double>(count), torch::TensorOptions().dtype(torch::kFloat).device(device));
}

}  // namespace hamgan
