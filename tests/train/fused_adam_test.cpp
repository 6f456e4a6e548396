// FusedAdam (gan/step/fused_adam.h) against LibTorch's own Adam, the update it
// replaces: the same parameters, moments and step counts after several steps
// with weight decay and TTUR-like betas; a skipped update changes nothing; the
// step count survives a save (store_steps) and a load (load_steps).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "gan/step/fused_adam.h"

namespace hamgan {
namespace {

using torch::optim::AdamOptions;
using torch::optim::AdamParamState;

std::vector<torch::Tensor> fresh_params(int seed) {
  torch::manual_seed(seed);
  return {torch::randn({5, 3}).requires_grad_(), torch::randn({7}).requires_grad_(),
          torch::randn({2, 3, 3, 3}).contiguous(torch::MemoryFormat::ChannelsLast).requires_grad_()};
}

void set_grads(const std::vector<torch::Tensor>& params, int step) {
  torch::manual_seed(100 + step);
  for (const auto& p : params) p.mutable_grad() = torch::randn_like(p);
}

const AdamParamState& state_of(torch::optim::Adam& opt, const torch::Tensor& p) {
  return static_cast<const AdamParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
}

TEST(FusedAdam, FollowsLibTorchsAdamStepForStep) {
  const auto options = AdamOptions(1e-2).betas({0.0, 0.999}).eps(1e-8).weight_decay(0.01);
  std::vector<torch::Tensor> ours = fresh_params(1), theirs = fresh_params(1);
  FusedAdam fused(ours, options);
  torch::optim::Adam reference(theirs, options);
  for (int step = 0; step < 5; ++step) {
    set_grads(ours, step);
    set_grads(theirs, step);
    fused.step();
    reference.step();
  }
  for (size_t i = 0; i < ours.size(); ++i) {
    EXPECT_TRUE(torch::allclose(ours[i], theirs[i], 1e-5, 1e-7)) << "parameter " << i;
    const AdamParamState &a = state_of(fused, ours[i]), &b = state_of(reference, theirs[i]);
    EXPECT_EQ(a.step(), 5);
    EXPECT_EQ(b.step(), 5);
    EXPECT_TRUE(torch::allclose(a.exp_avg(), b.exp_avg(), 1e-5, 1e-7)) << i;
    EXPECT_TRUE(torch::allclose(a.exp_avg_sq(), b.exp_avg_sq(), 1e-5, 1e-9)) << i;
  }
}

TEST(FusedAdam, ASkippedUpdateChangesNothingAndTheCountSurvivesSaveAndLoad) {
  std::vector<torch::Tensor> params = fresh_params(2);
  FusedAdam opt(params, AdamOptions(1e-2));
  set_grads(params, 0);
  opt.step_unless(torch::zeros({}));  // applied
  std::vector<torch::Tensor> before;
  for (const auto& p : params) before.push_back(p.detach().clone());
  const torch::Tensor moment = state_of(opt, params[0]).exp_avg().clone();
  set_grads(params, 1);
  opt.step_unless(torch::ones({}));  // skipped: parameters, moments and count stay
  for (size_t i = 0; i < params.size(); ++i) EXPECT_TRUE(torch::equal(params[i], before[i])) << i;
  EXPECT_TRUE(torch::equal(state_of(opt, params[0]).exp_avg(), moment));
  opt.store_steps();
  EXPECT_EQ(state_of(opt, params[0]).step(), 1);  // the device's count, not the host's guess
  // A copy of the state continues where this one stands: the next update is step 2 in both.
  std::vector<torch::Tensor> copy;
  for (const auto& p : params) copy.push_back(p.detach().clone().requires_grad_());
  FusedAdam resumed(copy, AdamOptions(1e-2));
  for (size_t i = 0; i < params.size(); ++i) {
    auto s = std::make_unique<AdamParamState>(state_of(opt, params[i]));
    s->exp_avg(s->exp_avg().clone());
    s->exp_avg_sq(s->exp_avg_sq().clone());
    resumed.state()[copy[i].unsafeGetTensorImpl()] = std::move(s);
  }
  resumed.load_steps();
  set_grads(params, 2);
  set_grads(copy, 2);
  opt.step();
  resumed.step();
  for (size_t i = 0; i < params.size(); ++i) EXPECT_TRUE(torch::equal(params[i], copy[i])) << i;
}

}  // namespace
}  // namespace hamgan
