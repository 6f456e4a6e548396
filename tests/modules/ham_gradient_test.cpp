// The ham's gradients (docs/ham.md, "One-step gradient vs BPTT"): the one-step gradient against
// autograd through the last step only, and BPTT against finite differences, in double precision.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "modules/ham_decomposition.h"
#include "tests/modules/module_test_util.h"

namespace hamgan {
namespace {

using test::seeded;
using test::kF64;

HamSolverOptions solver(HamType type, int64_t steps, HamGradient grad, double t) {
  HamSolverOptions o;
  o.type = type;
  o.steps = steps;
  o.gradient = grad;
  o.temperature = t;
  return o;
}

// Bases and input suited to the type: NMF needs non-negative X and bases.
std::pair<torch::Tensor, torch::Tensor> inputs(HamType type, int64_t d, int64_t n, int64_t r, uint64_t seed) {
  auto g = seeded(seed);
  auto x = type == HamType::kNMF ? torch::rand({1, d, n}, g, kF64) + 0.1 : torch::randn({1, d, n}, g, kF64);
  return {x, ham_random_bases(type, 1, d, r, kF64, g)};
}

torch::Tensor input_grad(const torch::Tensor& x0, const torch::Tensor& bases, const HamSolverOptions& o,
                         const torch::Tensor& w, torch::Tensor* out = nullptr) {
  auto x = x0.clone().requires_grad_(true);
  auto y = ham_reconstruct(ham_decompose(x, bases, o));
  if (out) *out = y.detach();
  return torch::autograd::grad({(y * w).sum()}, {x})[0];
}

class HamGradientTest : public ::testing::TestWithParam<HamType> {};

TEST_P(HamGradientTest, OneStepIsAutogradThroughLastStepOnly) {
  const HamType type = GetParam();
  const double t = type == HamType::kNMF ? 1.0 : 0.1;
  auto [x0, bases] = inputs(type, 8, 20, 3, 11);
  auto w = torch::randn({1, 8, 20}, seeded(12), kF64);
  torch::Tensor y_one, y_bptt;
  auto g_one = input_grad(x0, bases, solver(type, 4, HamGradient::kOneStep, t), w, &y_one);
  auto g_bptt = input_grad(x0, bases, solver(type, 4, HamGradient::kBPTT, t), w, &y_bptt);

  // Expected: run the K steps on a detached copy, then differentiate the last code step alone.
  HamFactors s{bases, {}};
  {
    torch::NoGradGuard ng;
    if (type == HamType::kNMF) s.codes = nmf_init_codes(x0, bases, t);
    for (int k = 0; k < 4; ++k) {
      if (type == HamType::kNMF) s = nmf_step(x0, s);
      if (type == HamType::kVQ) s = vq_step(x0, s.bases, t);
      if (type == HamType::kCD) s = cd_step(x0, s.bases, t);
    }
  }
  auto x = x0.clone().requires_grad_(true);
  torch::Tensor codes = type == HamType::kNMF  ? nmf_update_codes(x, s.bases, s.codes)
                        : type == HamType::kVQ ? vq_codes(x, s.bases, t, /*detach_norm=*/true)
                                               : cd_codes(x, s.bases, 0.01);
  auto y = torch::bmm(s.bases, codes.transpose(1, 2));
  auto g_last = torch::autograd::grad({(y * w).sum()}, {x})[0];

  EXPECT_TRUE(torch::allclose(y_one, y.detach(), 1e-10, 1e-12));
  EXPECT_TRUE(torch::allclose(g_one, g_last, 1e-9, 1e-11)) << (g_one - g_last).abs().max().item<double>();
  // Same forward value, different gradient.
  EXPECT_TRUE(torch::allclose(y_one, y_bptt, 1e-10, 1e-12));
  EXPECT_GT((g_one - g_bptt).norm().item<double>(), 1e-3 * g_bptt.norm().item<double>());
}

TEST_P(HamGradientTest, BpttMatchesFiniteDifferences) {
  const HamType type = GetParam();
  const double t = type == HamType::kNMF ? 1.0 : 0.3;  // a smooth softmax keeps central differences accurate
  auto [x0, bases] = inputs(type, 4, 6, 2, 21);
  auto w = torch::randn({1, 4, 6}, seeded(22), kF64);
  const auto o = solver(type, 3, HamGradient::kBPTT, t);
  auto g = input_grad(x0, bases, o, w).contiguous();
  auto loss = [&](const torch::Tensor& x) {
    torch::NoGradGuard ng;
    return (ham_reconstruct(ham_decompose(x, bases, o)) * w).sum().item<double>();
  };
  const double h = 1e-6;
  auto flat = x0.flatten();
  double worst = 0;
  for (int64_t i = 0; i < flat.numel(); ++i) {
    auto xp = x0.clone(), xm = x0.clone();
    xp.view(-1)[i] += h;
    xm.view(-1)[i] -= h;
    const double fd = (loss(xp) - loss(xm)) / (2 * h);
    const double ad = g.view(-1)[i].item<double>();
    worst = std::max(worst, std::abs(fd - ad) / (1e-3 + std::abs(fd)));
  }
  EXPECT_LT(worst, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Types, HamGradientTest, ::testing::Values(HamType::kNMF, HamType::kVQ, HamType::kCD),
                         [](const auto& info) { return to_string(info.param); });

}  // namespace
}  // namespace hamgan
