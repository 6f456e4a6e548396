#include "gan/train/update_guard.h"

namespace hamgan {

UpdateGuard::UpdateGuard(TrainState& state, bool enabled) : enabled_(enabled) {
  if (!enabled_) return;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> all = state.g->buffers();
  for (const auto& b : state.d->buffers()) all.push_back(b);
  for (const auto& b : all) {
    buffers_.push_back(b);
    saved_.push_back(b.clone());
  }
}

bool UpdateGuard::update_is_finite(torch::nn::Module& m, const torch::Tensor& loss) {
  if (!enabled_) return true;
  // A NaN or ±inf anywhere makes the sum non-finite.
  std::vector<torch::Tensor> sums = {loss.detach().to(torch::kFloat).sum()};
  for (const auto& p : m.parameters())
    if (p.grad().defined()) sums.push_back(p.grad().sum().to(torch::kFloat));
  if (torch::stack(sums).sum().isfinite().item<bool>()) return true;
  torch::NoGradGuard no_grad;
  for (auto& p : m.parameters())
    if (p.grad().defined()) p.grad().zero_();
  for (size_t i = 0; i < buffers_.size(); ++i) buffers_[i].copy_(saved_[i]);
  return false;
}

}  // namespace hamgan
