#include "gan/step/update_guard.h"

namespace hamgan {

UpdateGuard::UpdateGuard(StepState& state, bool enabled) : enabled_(enabled) {
  if (!enabled_) return;
  torch::NoGradGuard no_grad;
  buffers_ = state.g->buffers();
  for (const auto& b : state.d->buffers()) buffers_.push_back(b);
  for (const auto& b : buffers_) saved_.push_back(b.clone());
}

torch::Tensor UpdateGuard::nonfinite(torch::nn::Module& m, const torch::Tensor& loss, GradSync& sync) {
  torch::NoGradGuard no_grad;
  // A NaN or ±inf anywhere makes an L1 norm, and so their sum, non-finite.
  std::vector<torch::Tensor> grads;
  for (const auto& p : m.parameters())
    if (p.grad().defined()) grads.push_back(p.grad());
  torch::Tensor total = loss.detach().to(torch::kFloat).sum();
  if (!grads.empty()) total = total + torch::stack(at::_foreach_norm(grads, 1)).to(torch::kFloat).sum();
  torch::Tensor flag = total.isfinite().logical_not().to(torch::kFloat);
  sync.agree_on_flag(flag);  // a sum over the ranks: any rank's non-finite value skips everywhere
  flag = flag.gt(0);
  for (size_t i = 0; i < buffers_.size(); ++i) buffers_[i].copy_(torch::where(flag, saved_[i], buffers_[i]));
  return flag.to(torch::kFloat);
}

}  // namespace hamgan
