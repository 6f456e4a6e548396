// The fused CPU kernel of the local NMF steps against the double-precision loop oracle
// (tests/modules/ham_oracle.h) and against the ATen step functions it replaces, on shapes that
// cover every rank it takes, positions that do not fill a register tile, odd d and the strided
// (B, n, d) memory of the Hamburger's channels_last path.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <limits>

#include "modules/ham_decomposition.h"
#include "modules/ham_nmf_autograd.h"
#include "modules/ham_nmf_cpu.h"
#include "tests/modules/ham_oracle.h"
#include "tests/modules/module_test_util.h"

namespace hamgan {
namespace {

using test::seeded;

using test::Mat;

// ‖a − b‖ / ‖b‖ over batch element b of two (B, rows, cols) tensors, b read as the reference Mat.
double relative_error(const torch::Tensor& got, const Mat& want, int64_t b) {
  const Mat g = test::from_tensor(got, b);
  double num = 0, den = 0;
  for (size_t i = 0; i < want.v.size(); ++i) num += (g.v[i] - want.v[i]) * (g.v[i] - want.v[i]), den += want.v[i] * want.v[i];
  return std::sqrt(num / den);
}

struct Shape {
  int64_t batch, d, n, r;
};

// The kernel's pair as the decomposition's factors.
HamFactors fused_nmf(const torch::Tensor& x, const torch::Tensor& bases, int64_t steps, double t) {
  auto [d, c] = nmf_local_steps_cpu(x, bases, steps, t, kHamEps);
  return {d, c};
}

TEST(FusedNmf, MatchesTheDoubleOracleForEveryRank) {
  // n = 256 and 1024 as at 16×16 and 32×32; 37 and 5 leave a partial tile; d = 23 is odd.
  const std::vector<Shape> shapes = {{3, 16, 256, 2}, {2, 32, 256, 4}, {2, 64, 64, 8}, {3, 23, 37, 3},
                                     {2, 8, 5, 1},    {1, 40, 100, 5}, {1, 48, 1024, 6}, {2, 56, 49, 7}};
  auto g = seeded(7);
  for (const auto& s : shapes) {
    const auto x = torch::rand({s.batch, s.d, s.n}, g);  // non-negative, as after the ReLU
    const auto bases = torch::rand({s.batch, s.d, s.r}, g);
    for (double t : {1.0, 0.5}) {
      const HamFactors fused = fused_nmf(x, bases, 6, t);
      ASSERT_EQ(fused.bases.sizes(), bases.sizes());
      ASSERT_EQ(fused.codes.sizes(), (std::vector<int64_t>{s.batch, s.n, s.r}));
      for (int64_t b = 0; b < s.batch; ++b) {
        const auto [d_want, c_want] = test::nmf_local_steps(test::from_tensor(x, b), test::from_tensor(bases, b), 6, t, kHamEps);
        EXPECT_LT(relative_error(fused.bases, d_want, b), 1e-5) << s.d << "x" << s.n << " r=" << s.r << " T=" << t;
        EXPECT_LT(relative_error(fused.codes, c_want, b), 1e-5) << s.d << "x" << s.n << " r=" << s.r << " T=" << t;
      }
    }
  }
}

TEST(FusedNmf, AgreesWithTheAtenStepsItReplaces) {
  auto g = seeded(11);
  const auto x = torch::rand({4, 32, 256}, g), bases = torch::rand({4, 32, 4}, g);
  HamFactors aten{bases, nmf_init_codes(x, bases, 1.0)};
  for (int k = 0; k < 6; ++k) aten = nmf_step(x, aten);
  const HamFactors fused = fused_nmf(x, bases, 6, 1.0);
  EXPECT_LT(((fused.bases - aten.bases).norm() / aten.bases.norm()).item<double>(), 1e-5);
  EXPECT_LT(((fused.codes - aten.codes).norm() / aten.codes.norm()).item<double>(), 1e-5);
  // Zero steps: the softmax initial codes and the bases untouched.
  const HamFactors start = fused_nmf(x, bases, 0, 1.0);
  EXPECT_TRUE(torch::equal(start.bases, bases));
  EXPECT_LT((start.codes - nmf_init_codes(x, bases, 1.0)).abs().max().item<double>(), 1e-6);
}

TEST(FusedNmf, StridedInputGivesTheSameBits) {
  // The channels_last Hamburger hands over Xᵀ of a (B, n, d) tensor: the kernel copies either layout
  // into the same buffer, so the results are identical.
  auto g = seeded(3);
  const auto rows = torch::rand({3, 64, 24}, g);  // (B, n, d)
  const auto bases = torch::rand({3, 24, 3}, g);
  const auto strided = fused_nmf(rows.transpose(1, 2), bases, 6, 1.0);
  const auto packed = fused_nmf(rows.transpose(1, 2).contiguous(), bases, 6, 1.0);
  EXPECT_TRUE(torch::equal(strided.bases, packed.bases));
  EXPECT_TRUE(torch::equal(strided.codes, packed.codes));
}

TEST(FusedNmf, TakesOnlyCpuFloat32WithoutAGraph) {
  const auto x = torch::rand({2, 16, 64}), bases = torch::rand({2, 16, 2});
  EXPECT_TRUE(fused_nmf_applies(x, bases));
  EXPECT_FALSE(fused_nmf_applies(x.to(torch::kDouble), bases.to(torch::kDouble)));
  EXPECT_FALSE(fused_nmf_applies(torch::rand({2, 16, 64}), torch::rand({2, 16, kFusedNmfMaxRank + 1})));
  const auto x_grad = x.clone().requires_grad_(true);
  EXPECT_FALSE(fused_nmf_applies(x_grad, bases));  // BPTT: autograd must see the steps
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(fused_nmf_applies(x_grad, bases));
}

TEST(FusedNmf, TheOneStepDriverRunsItAndMatchesTheOracle) {
  auto g = seeded(5);
  const auto x = torch::rand({2, 32, 100}, g), bases = torch::rand({2, 32, 4}, g);
  HamSolverOptions o;  // NMF, K = 6, one-step
  const HamFactors f = ham_local_steps(x, bases, o);
  for (int64_t b = 0; b < 2; ++b) {
    const auto [d_want, c_want] = test::nmf_local_steps(test::from_tensor(x, b), test::from_tensor(bases, b), 6, 1.0, kHamEps);
    EXPECT_LT(relative_error(f.bases, d_want, b), 1e-5);
    EXPECT_LT(relative_error(f.codes, c_want, b), 1e-5);
  }
}

// The oracle of the one-step node for one sample: X = ReLU(x), the K local steps, S = C / (C DᵀD + ε),
// the final codes (XᵀD) ⊙ S and, for an upstream gradient G, ∂x = [x > 0] ⊙ D (G ⊙ S)ᵀ.
struct OneStepOracle {
  Mat bases, codes, scale, grad_x;
};

OneStepOracle one_step_oracle(const Mat& x_raw, const Mat& bases0, const Mat& grad, int64_t steps, double t) {
  Mat x = x_raw;
  for (auto& v : x.v) v = std::max(v, 0.0);
  auto [d, c] = test::nmf_local_steps(x, bases0, steps, t, kHamEps);
  const Mat den = test::matmul(c, test::matmul(test::transpose(d), d));
  Mat scale = c;
  for (size_t i = 0; i < scale.v.size(); ++i) scale.v[i] = c.v[i] / (den.v[i] + kHamEps);
  Mat codes = test::matmul(test::transpose(x), d);
  for (size_t i = 0; i < codes.v.size(); ++i) codes.v[i] *= scale.v[i];
  Mat gs = grad;
  for (size_t i = 0; i < gs.v.size(); ++i) gs.v[i] *= scale.v[i];
  Mat grad_x = test::matmul(d, test::transpose(gs));
  for (size_t i = 0; i < grad_x.v.size(); ++i) grad_x.v[i] = x_raw.v[i] > 0 ? grad_x.v[i] : 0.0;
  return {d, codes, scale, grad_x};
}

TEST(FusedNmfOneStep, ForwardAndBackwardMatchTheOracle) {
  // Both layouts of x: packed (B, d, n) and the channels_last bread's Xᵀ of a (B, n, d) tensor; ranks
  // 1-8, d and n that leave partial vectors and tiles.
  const std::vector<Shape> shapes = {{2, 32, 256, 4}, {3, 23, 37, 3}, {2, 64, 64, 8}, {1, 8, 5, 1}, {2, 16, 49, 2}};
  auto g = seeded(21);
  for (const auto& s : shapes) {
    for (bool strided : {false, true}) {
      const auto x = strided ? torch::randn({s.batch, s.n, s.d}, g).transpose(1, 2) : torch::randn({s.batch, s.d, s.n}, g);
      const auto bases = torch::rand({s.batch, s.d, s.r}, g);
      const auto grad = torch::randn({s.batch, s.n, s.r}, g);
      const NmfOneStepCpu out = nmf_one_step_cpu(x, bases, 6, 1.0, kHamEps, /*keep_for_backward=*/true);
      const auto grad_x = nmf_one_step_backward_cpu(grad, out);
      const std::string at = std::to_string(s.d) + "x" + std::to_string(s.n) + " r=" + std::to_string(s.r) +
                             (strided ? " channels_last" : " packed");
      EXPECT_EQ(grad_x.strides(), x.strides()) << at << ": the gradient keeps x's layout";
      EXPECT_TRUE(torch::equal(out.positive, x.gt(0))) << at;
      for (int64_t b = 0; b < s.batch; ++b) {
        const auto want = one_step_oracle(test::from_tensor(x, b), test::from_tensor(bases, b), test::from_tensor(grad, b), 6, 1.0);
        EXPECT_LT(relative_error(out.bases, want.bases, b), 1e-5) << at;
        EXPECT_LT(relative_error(out.scale, want.scale, b), 1e-5) << at;
        EXPECT_LT(relative_error(out.codes, want.codes, b), 1e-5) << at;
        EXPECT_LT(relative_error(grad_x, want.grad_x, b), 1e-5) << at;
      }
    }
  }
}

TEST(FusedNmfOneStep, ABf16InputIsReadAsStoredAndItsGradientWrittenInBf16) {
  // A bf16 x (the bread's output in bf16 runs) gives exactly the float32 factors of x.to(float32),
  // which the test above checks against the oracle, and ∂X is that path's ∂X rounded once to bf16.
  auto g = seeded(22);
  for (bool strided : {false, true}) {
    const auto x = (strided ? torch::randn({2, 49, 16}, g).transpose(1, 2) : torch::randn({2, 16, 49}, g))
                       .to(torch::kBFloat16);
    const auto x_float = x.to(torch::kFloat);  // the same strides (MemoryFormat::Preserve)
    const auto bases = torch::rand({2, 16, 2}, g);
    const auto grad = torch::randn({2, 49, 2}, g);
    const std::string at = strided ? "channels_last" : "packed";
    const NmfOneStepCpu low = nmf_one_step_cpu(x, bases, 6, 1.0, kHamEps, /*keep_for_backward=*/true);
    const NmfOneStepCpu full = nmf_one_step_cpu(x_float, bases, 6, 1.0, kHamEps, /*keep_for_backward=*/true);
    EXPECT_EQ(low.codes.scalar_type(), torch::kFloat) << at;
    EXPECT_TRUE(torch::equal(low.bases, full.bases)) << at;
    EXPECT_TRUE(torch::equal(low.codes, full.codes)) << at;
    EXPECT_TRUE(torch::equal(low.scale, full.scale)) << at;
    EXPECT_TRUE(torch::equal(low.positive, full.positive)) << at;
    const auto grad_low = nmf_one_step_backward_cpu(grad, low);
    EXPECT_EQ(grad_low.scalar_type(), torch::kBFloat16) << at;
    EXPECT_EQ(grad_low.strides(), x.strides()) << at;
    EXPECT_TRUE(torch::equal(grad_low, nmf_one_step_backward_cpu(grad, full).to(torch::kBFloat16))) << at;
    // Through the autograd node, as the Hamburger calls it.
    const auto x_leaf = x.detach().requires_grad_();
    const auto codes = fused_nmf_one_step(x_leaf, bases, 6, 1.0)[0];
    codes.backward(grad);
    EXPECT_TRUE(torch::equal(codes, full.codes)) << at;
    EXPECT_TRUE(torch::equal(x_leaf.grad(), grad_low)) << at;
  }
}

TEST(FusedNmfOneStep, ANanInTheInputReachesTheCodes) {
  // The trainer's non-finite check must see a broken activation, so the ReLU keeps NaN as torch::relu does.
  auto x = torch::rand({2, 16, 32});
  x[1][3][7] = std::numeric_limits<float>::quiet_NaN();
  const auto out = nmf_one_step_cpu(x, torch::rand({2, 16, 2}), 6, 1.0, kHamEps, /*keep_for_backward=*/false);
  EXPECT_TRUE(out.codes[0].isfinite().all().item<bool>());
  EXPECT_FALSE(out.codes[1].isfinite().all().item<bool>());
  EXPECT_FALSE(out.positive.defined());
}

}  // namespace
}  // namespace hamgan
