// The per-image squared input-gradient norms of R1/R2 (gan/step/penalties.h) against the closed form
// of a critic whose gradient is known, their graph into the critic's weights, several inputs in one
// backward pass, bf16 autocast, and the refusals.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/errors.h"
#include "gan/model/discriminator.h"
#include "gan/step/penalties.h"
#include "gan/step/precision.h"
#include "modules/ham_block.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

// D(x_i) = Σ w ⊙ tanh(x_i): ∇D(x_i) = w ⊙ (1 − tanh²(x_i)), each image on its own.
torch::Tensor critic(const torch::Tensor& w, const torch::Tensor& x) { return (torch::tanh(x) * w).flatten(1).sum(1); }
torch::Tensor slope(const torch::Tensor& x) { return 1 - torch::tanh(x).square(); }

TEST(GradientPenalty, PerImageNormsAndTheirGraphMatchTheClosedForm) {
  torch::manual_seed(2);
  const auto w = torch::randn({3, 5, 5}, torch::kDouble).requires_grad_(true);
  const auto x = torch::randn({4, 3, 5, 5}, torch::kDouble).requires_grad_(true);
  const auto logits = critic(w, x);
  const torch::Tensor norms = input_gradient_sq_norms(logits, x);
  ASSERT_EQ(norms.sizes(), (std::vector<int64_t>{4}));
  EXPECT_EQ(norms.scalar_type(), torch::kDouble);  // float64 stays float64
  const auto wd = w.detach(), xd = x.detach();
  const auto want = (wd * slope(xd)).square().flatten(1).sum(1);
  EXPECT_TRUE(torch::allclose(norms, want, 1e-12, 0)) << norms << want;
  // The graph reaches the weights: ∂ mean_i ‖w ⊙ s_i‖² / ∂w = mean_i 2 w ⊙ s_i².
  const auto grad_w = torch::autograd::grad({norms.mean()}, {w}, {}, /*retain_graph=*/true)[0];
  EXPECT_TRUE(torch::allclose(grad_w, (2 * wd * slope(xd).square()).mean(0), 1e-12, 0));
  // ... and the logits keep theirs for the adversarial loss: ∂ Σ D(x_i) / ∂w = Σ tanh(x_i).
  const auto grad_logits = torch::autograd::grad({logits.sum()}, {w})[0];
  EXPECT_TRUE(torch::allclose(grad_logits, torch::tanh(xd).sum(0), 1e-12, 0));
}

TEST(GradientPenalty, RealsAndFakesFromOneForwardGetTheirOwnNorms) {
  torch::manual_seed(3);
  const auto w = torch::randn({2, 4, 4});
  const auto real = torch::randn({3, 2, 4, 4}).requires_grad_(true);
  const auto fake = (torch::randn({5, 2, 4, 4}) * 2).requires_grad_(true);
  const auto norms = input_gradient_sq_norms(critic(w, torch::cat({real, fake})), {real, fake});
  ASSERT_EQ(norms.size(), 2u);
  EXPECT_EQ(norms[0].scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::allclose(norms[0], (w * slope(real.detach())).square().flatten(1).sum(1), 1e-5, 0));
  EXPECT_TRUE(torch::allclose(norms[1], (w * slope(fake.detach())).square().flatten(1).sum(1), 1e-5, 0));
}

TEST(GradientPenalty, RefusesInputsWithoutAGradientPath) {
  const auto w = torch::randn({2, 4, 4}).requires_grad_(true);
  const auto plain = torch::randn({3, 2, 4, 4});
  try {
    input_gradient_sq_norms(critic(w, plain), plain);
    FAIL() << "an input without requires_grad was taken";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("requires_grad_(true)"), std::string::npos) << e.what();
  }
  const auto used = torch::randn({3, 2, 4, 4}).requires_grad_(true);
  const auto unused = torch::randn({3, 2, 4, 4}).requires_grad_(true);
  try {
    input_gradient_sq_norms(critic(w, used), {used, unused});
    FAIL() << "an input the logits do not depend on was taken";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("input 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(input_gradient_sq_norms(critic(w, used).detach(), used), ModelError);
}

TEST(GradientPenalty, UnderBf16AutocastTheNormsAreFloat32AndCloseToFp32) {
  torch::manual_seed(4);
  const TrainConfig c = test::tiny_config(test::temp_dir("penalty_bf16"));  // D with a Hamburger
  Discriminator d(c.model);
  d->eval();  // the same weights, u and bases in every call
  auto ham = std::dynamic_pointer_cast<HamBlockImpl>(d->context());
  ASSERT_TRUE(ham);
  const auto images = torch::rand({4, 1, 32, 32}) * 2 - 1;
  const auto labels = torch::arange(4);
  auto norms_of = [&](const torch::Tensor& x, const Precision* reduced) {
    ham->set_generator(at::make_generator<at::CPUGeneratorImpl>(9));
    torch::Tensor logits;
    {
      PrecisionScope scope(reduced ? *reduced : resolve_precision(PrecisionChoice::kFp32, false, torch::kCPU));
      logits = d->forward(x, labels);
    }
    return input_gradient_sq_norms(logits, x);  // outside the scope, as the steps compute losses
  };
  const auto reference = norms_of(images.clone().requires_grad_(true), nullptr);
  const Precision bf16 = resolve_precision(PrecisionChoice::kBf16, false, torch::kCPU);
  const auto reduced = norms_of(images.clone().requires_grad_(true), &bf16);
  EXPECT_EQ(reduced.scalar_type(), torch::kFloat);
  // bf16 keeps 8 significant bits: different from fp32, yet close.
  const double diff = ((reduced - reference).abs().max() / reference.abs().max()).item<double>();
  ::testing::Test::RecordProperty("bf16_relative_difference", std::to_string(diff));
  EXPECT_GT(diff, 1e-6);
  EXPECT_LT(diff, 5e-2);
  // bf16 images: their bf16 gradient is widened before squaring.
  const auto bf16_images = images.to(torch::kBFloat16).requires_grad_(true);
  const auto from_bf16 = norms_of(bf16_images, &bf16);
  EXPECT_EQ(from_bf16.scalar_type(), torch::kFloat);
  // The penalty's gradient reaches D's float32 weights, finite.
  d->zero_grad();
  reduced.mean().backward();
  int64_t reached = 0;
  for (const auto& p : d->parameters()) {
    if (!p.grad().defined()) continue;
    ++reached;
    EXPECT_EQ(p.grad().scalar_type(), torch::kFloat);
    EXPECT_TRUE(p.grad().isfinite().all().item<bool>());
  }
  EXPECT_GT(reached, 10);
}

// The NHWC layout the CPU configs train in takes the Hamburger's other paths (its channels_last
// matmuls, the fused kernel on strided X): the same norms and the same gradients in D's weights.
TEST(GradientPenalty, ChannelsLastGivesTheNchwResult) {
  torch::manual_seed(5);
  const TrainConfig c = test::tiny_config(test::temp_dir("penalty_nhwc"));
  Discriminator nchw(c.model), nhwc(c.model);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : nchw->named_parameters()) {
      if (p.key() == "context.sigma") p.value().fill_(0.5);
      nhwc->named_parameters()[p.key()].copy_(p.value());
    }
    for (auto& b : nchw->named_buffers()) nhwc->named_buffers()[b.key()].copy_(b.value());
  }
  const Precision channels_last = resolve_precision(PrecisionChoice::kFp32, true, torch::kCPU);
  apply_memory_format(*nhwc, channels_last);
  const auto images = torch::rand({4, 1, 32, 32}) * 2 - 1;
  const auto labels = torch::arange(4);
  auto penalty_grads = [&](Discriminator& d, const torch::Tensor& x_in) {
    std::dynamic_pointer_cast<HamBlockImpl>(d->context())->set_generator(at::make_generator<at::CPUGeneratorImpl>(3));
    const auto x = x_in.clone().requires_grad_(true);
    const auto norms = input_gradient_sq_norms(d->forward(x, labels), x);
    std::vector<torch::Tensor> out{norms.detach()};
    for (auto& g : torch::autograd::grad({norms.mean()}, d->parameters(), {}, false, false, /*allow_unused=*/true))
      out.push_back(g.defined() ? g : torch::Tensor());
    return out;
  };
  const auto want = penalty_grads(nchw, images);
  const auto got = penalty_grads(nhwc, channels_last.layout(images));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].defined(), want[i].defined()) << i;
    if (!want[i].defined()) continue;
    const double scale = want[i].abs().max().item<double>();
    EXPECT_LE((got[i] - want[i]).abs().max().item<double>(), 1e-5 * scale + 1e-12) << "tensor " << i;
  }
}

}  // namespace
}  // namespace hamgan
