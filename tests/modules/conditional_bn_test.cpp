// Conditional batch norm (docs/modules.md, "Conditional batch norm") against a per-channel formula in double.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "core/errors.h"
#include "modules/conditional_bn.h"

using namespace hamgan;

namespace {

// Per-channel batch statistics computed with explicit sums (biased variance).
void channel_stats(const torch::Tensor& x, int64_t c, double& mean, double& var) {
  auto flat = x.select(1, c).contiguous().view({-1});
  auto a = flat.accessor<double, 1>();
  double s = 0, s2 = 0;
  const int64_t m = flat.size(0);
  for (int64_t i = 0; i < m; ++i) s += a[i];
  mean = s / m;
  for (int64_t i = 0; i < m; ++i) s2 += (a[i] - mean) * (a[i] - mean);
  var = s2 / m;
}

torch::Tensor expected_output(const torch::Tensor& x, const torch::Tensor& labels, const torch::Tensor& gain,
                              const torch::Tensor& bias, const std::vector<double>& mean,
                              const std::vector<double>& var, double eps) {
  auto y = torch::empty_like(x);
  for (int64_t n = 0; n < x.size(0); ++n) {
    const int64_t k = labels.defined() ? labels[n].item<int64_t>() : 0;
    for (int64_t c = 0; c < x.size(1); ++c) {
      const double g = gain[k][c].item<double>(), b = bias[k][c].item<double>();
      y[n][c] = (x[n][c] - mean[c]) / std::sqrt(var[c] + eps) * g + b;
    }
  }
  return y;
}

ConditionalBatchNorm make_cbn(int64_t c, int64_t k) {
  ConditionalBatchNorm bn(ConditionalBatchNormOptions(c, k));
  bn->to(torch::kDouble);
  torch::NoGradGuard ng;
  bn->gain.copy_(torch::rand_like(bn->gain) + 0.5);
  bn->bias.copy_(torch::randn_like(bn->bias));
  return bn;
}

}  // namespace

TEST(ConditionalBatchNorm, InitialTablesAreOneAndZero) {
  ConditionalBatchNorm bn(ConditionalBatchNormOptions(5, 7));
  EXPECT_EQ(bn->gain.sizes(), (std::vector<int64_t>{7, 5}));
  EXPECT_TRUE(torch::equal(bn->gain, torch::ones({7, 5})));
  EXPECT_TRUE(torch::equal(bn->bias, torch::zeros({7, 5})));
  EXPECT_TRUE(torch::equal(bn->running_var, torch::ones({5})));
  EXPECT_EQ(bn->options.eps(), 1e-3);
  EXPECT_EQ(bn->options.momentum(), 1e-3);
}

TEST(ConditionalBatchNorm, TrainingMatchesFormulaAndUpdatesRunningStats) {
  torch::manual_seed(0);
  const int64_t c = 3;
  auto bn = make_cbn(c, 4);
  auto x = torch::randn({6, c, 4, 5}, torch::kDouble) * 2.0 + 0.7;
  auto labels = torch::tensor({0, 1, 2, 3, 1, 0}, torch::kLong);
  std::vector<double> mean(c), var(c);
  for (int64_t i = 0; i < c; ++i) channel_stats(x, i, mean[i], var[i]);
  auto y = bn->forward(x, labels);
  EXPECT_TRUE(torch::allclose(y, expected_output(x, labels, bn->gain, bn->bias, mean, var, 1e-3), 1e-10, 1e-12));
  for (int64_t i = 0; i < c; ++i) {
    EXPECT_NEAR(bn->running_mean[i].item<double>(), 0.001 * mean[i], 1e-14);
    EXPECT_NEAR(bn->running_var[i].item<double>(), 0.999 + 0.001 * var[i], 1e-14);  // biased var
  }
  // A second step keeps decaying with 0.999.
  auto x2 = torch::randn({6, c, 4, 5}, torch::kDouble);
  bn->forward(x2, labels);
  for (int64_t i = 0; i < c; ++i) {
    double m2, v2;
    channel_stats(x2, i, m2, v2);
    EXPECT_NEAR(bn->running_mean[i].item<double>(), 0.999 * 0.001 * mean[i] + 0.001 * m2, 1e-14);
    EXPECT_NEAR(bn->running_var[i].item<double>(), 0.999 * (0.999 + 0.001 * var[i]) + 0.001 * v2, 1e-14);
  }
}

TEST(ConditionalBatchNorm, Float32MatchesFormula) {
  // The float32 module, the dtype the models train in, against the formula in double, with
  // signed gains, a repeated class and a non-square map.
  torch::manual_seed(5);
  const int64_t c = 3;
  ConditionalBatchNorm bn(ConditionalBatchNormOptions(c, 4));
  {
    torch::NoGradGuard ng;
    bn->gain.copy_(torch::randn({4, c}));
    bn->bias.copy_(torch::randn({4, c}));
  }
  auto x = torch::randn({5, c, 2, 3}) * 1.5 + 0.4;
  auto labels = torch::tensor({0, 3, 1, 3, 2}, torch::kLong);
  const auto xd = x.to(torch::kDouble);
  std::vector<double> mean(c), var(c);
  for (int64_t i = 0; i < c; ++i) channel_stats(xd, i, mean[i], var[i]);
  auto y = bn->forward(x, labels);
  ASSERT_EQ(y.scalar_type(), torch::kFloat);
  const auto expected = expected_output(xd, labels, bn->gain.detach().to(torch::kDouble),
                                        bn->bias.detach().to(torch::kDouble), mean, var, 1e-3);
  EXPECT_TRUE(torch::allclose(y.to(torch::kDouble), expected, 1e-5, 1e-5));
}

TEST(ConditionalBatchNorm, OutputDependsOnClass) {
  torch::manual_seed(1);
  auto bn = make_cbn(4, 3);
  auto one = torch::randn({1, 4, 3, 3}, torch::kDouble);
  auto x = torch::cat({one, one, one, torch::randn({1, 4, 3, 3}, torch::kDouble)});
  auto y = bn->forward(x, torch::tensor({0, 2, 0, 1}, torch::kLong));
  EXPECT_TRUE(torch::allclose(y[0], y[2]));  // same input, same class
  EXPECT_FALSE(torch::allclose(y[0], y[1]));  // same input, other class
  // Sample 0 vs 1 differ exactly by the table rows: y = z·γ[k] + β[k].
  auto z = (y[0] - bn->bias[0].view({4, 1, 1})) / bn->gain[0].view({4, 1, 1});
  EXPECT_TRUE(torch::allclose(y[1], z * bn->gain[2].view({4, 1, 1}) + bn->bias[2].view({4, 1, 1}), 1e-10, 1e-12));
}

TEST(ConditionalBatchNorm, EvalUsesRunningStats) {
  torch::manual_seed(2);
  const int64_t c = 2;
  auto bn = make_cbn(c, 5);
  {
    torch::NoGradGuard ng;
    bn->running_mean.copy_(torch::tensor({0.3, -1.2}, torch::kDouble));
    bn->running_var.copy_(torch::tensor({2.5, 0.4}, torch::kDouble));
  }
  bn->eval();
  auto x = torch::randn({3, c, 2, 2}, torch::kDouble);
  auto labels = torch::tensor({4, 0, 2}, torch::kLong);
  auto y = bn->forward(x, labels);
  EXPECT_TRUE(torch::allclose(y, expected_output(x, labels, bn->gain, bn->bias, {0.3, -1.2}, {2.5, 0.4}, 1e-3),
                              1e-12, 1e-12));
  EXPECT_TRUE(torch::allclose(bn->running_mean, torch::tensor({0.3, -1.2}, torch::kDouble)));  // untouched
  // Per-sample: the result does not depend on the rest of the batch.
  EXPECT_TRUE(torch::allclose(bn->forward(x.slice(0, 1, 2), labels.slice(0, 1, 2)), y.slice(0, 1, 2)));
}

TEST(ConditionalBatchNorm, UnconditionalVariantIgnoresLabels) {
  torch::manual_seed(3);
  const int64_t c = 3;
  auto bn = make_cbn(c, 0);
  EXPECT_EQ(bn->gain.size(0), 1);
  auto x = torch::randn({4, c, 3, 2}, torch::kDouble);
  std::vector<double> mean(c), var(c);
  for (int64_t i = 0; i < c; ++i) channel_stats(x, i, mean[i], var[i]);
  auto y = bn->forward(x);
  EXPECT_TRUE(torch::allclose(y, expected_output(x, {}, bn->gain, bn->bias, mean, var, 1e-3), 1e-10, 1e-12));
}

TEST(ConditionalBatchNorm, GradientMatchesFiniteDifferences) {
  torch::manual_seed(4);
  auto bn = make_cbn(2, 3);
  auto x = torch::randn({3, 2, 2, 2}, torch::kDouble).requires_grad_(true);
  auto labels = torch::tensor({2, 0, 1}, torch::kLong);
  auto r = torch::randn({3, 2, 2, 2}, torch::kDouble);
  (bn->forward(x, labels) * r).sum().backward();
  auto xd = x.detach().clone().view({-1});
  const double h = 1e-6;
  for (int64_t i = 0; i < xd.numel(); i += 3) {
    torch::NoGradGuard ng;
    auto xp = xd.clone(), xm = xd.clone();
    xp[i] += h;
    xm[i] -= h;
    const double fp = (bn->forward(xp.view(x.sizes()), labels) * r).sum().item<double>();
    const double fm = (bn->forward(xm.view(x.sizes()), labels) * r).sum().item<double>();
    EXPECT_NEAR(x.grad().view({-1})[i].item<double>(), (fp - fm) / (2 * h), 1e-6);
  }
}

TEST(ConditionalBatchNorm, BadLabelsThrow) {
  ConditionalBatchNorm bn(ConditionalBatchNormOptions(2, 3));
  auto x = torch::randn({2, 2, 2, 2});
  EXPECT_THROW(bn->forward(x), ModelError);
  EXPECT_THROW(bn->forward(x, torch::tensor({0, 3}, torch::kLong)), ModelError);
  EXPECT_THROW(bn->forward(x, torch::tensor({0}, torch::kLong)), ModelError);
  EXPECT_THROW(ConditionalBatchNorm(ConditionalBatchNormOptions(0, 3)), ModelError);
}
