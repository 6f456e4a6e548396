// Losses and EMA against independent expectations.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "gan/step/ema.h"
#include "gan/step/losses.h"

namespace hamgan {
namespace {

TEST(Losses, HingeAndNonSaturatingMatchTheirFormulasInDouble) {
  torch::manual_seed(3);
  const torch::Tensor r = torch::randn({17}) * 2, f = torch::randn({17}) * 2;
  const auto rd = r.to(torch::kDouble), fd = f.to(torch::kDouble);
  double hinge_d = 0, hinge_g = 0, ns_d = 0, ns_g = 0;
  for (int64_t i = 0; i < 17; ++i) {
    const double x = rd[i].item<double>(), y = fd[i].item<double>();
    hinge_d += std::max(0.0, 1 - x) / 17 + std::max(0.0, 1 + y) / 17;
    hinge_g += -y / 17;
    const double sx = 1 / (1 + std::exp(-x)), sy = 1 / (1 + std::exp(-y));
    ns_d += -std::log(sx) / 17 - std::log(1 - sy) / 17;
    ns_g += -std::log(sy) / 17;
  }
  EXPECT_NEAR(discriminator_loss(LossType::kHinge, r, f).item<double>(), hinge_d, 1e-5);
  EXPECT_NEAR(generator_loss(LossType::kHinge, f).item<double>(), hinge_g, 1e-5);
  EXPECT_NEAR(discriminator_loss(LossType::kNonSaturating, r, f).item<double>(), ns_d, 1e-5);
  EXPECT_NEAR(generator_loss(LossType::kNonSaturating, f).item<double>(), ns_g, 1e-5);
  EXPECT_EQ(parse_loss_type("ns"), LossType::kNonSaturating);
  EXPECT_THROW(parse_loss_type("wgan"), ConfigError);
}

struct Net : torch::nn::Module {
  Net() {
    w = register_parameter("w", torch::randn({3, 4}));
    running = register_buffer("running", torch::randn({4}));
    count = register_buffer("count", torch::tensor(int64_t{5}));
  }
  torch::Tensor w, running, count;
};

TEST(Ema, CopiesBeforeStartThenFollowsTheDecayFormula) {
  torch::manual_seed(1);
  Net src, dst;
  EXPECT_EQ(ema_decay_at(3, 5, 0.99), 0.0);
  EXPECT_EQ(ema_decay_at(5, 5, 0.99), 0.99);
  ema_update(src, dst, ema_decay_at(0, 5, 0.99));  // before start: a copy
  EXPECT_TRUE(torch::equal(dst.w, src.w));
  EXPECT_TRUE(torch::equal(dst.running, src.running));
  const torch::Tensor before_w = dst.w.to(torch::kDouble).clone(), before_r = dst.running.to(torch::kDouble).clone();
  {
    torch::NoGradGuard g;
    src.w.add_(1.5);
    src.running.mul_(-2);
    src.count.fill_(9);
  }
  const double decay = 0.9;
  ema_update(src, dst, decay);
  const torch::Tensor want_w = decay * before_w + (1 - decay) * src.w.to(torch::kDouble);
  const torch::Tensor want_r = decay * before_r + (1 - decay) * src.running.to(torch::kDouble);
  EXPECT_LT((dst.w.to(torch::kDouble) - want_w).abs().max().item<double>(), 1e-6);
  EXPECT_LT((dst.running.to(torch::kDouble) - want_r).abs().max().item<double>(), 1e-6);
  EXPECT_EQ(dst.count.item<int64_t>(), 9);  // integer buffers are copied
}

}  // namespace
}  // namespace hamgan
