// The ham's matrix decompositions against a loop-based double-precision oracle
// (tests/modules/ham_oracle.h) and convergence properties of NMF; the gradients are
// tested in ham_gradient_test.cpp.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include "modules/ham_decomposition.h"
#include "tests/modules/ham_oracle.h"
#include "tests/modules/module_test_util.h"

namespace hamgan {
namespace {

using test::seeded;
using test::kF64;

using test::Mat;

// ‖X − D Cᵀ‖_F of batch element b, by the oracle.
double nmf_objective(const torch::Tensor& x, const HamFactors& f, int64_t b) {
  Mat X = test::from_tensor(x, b), R = test::matmul(test::from_tensor(f.bases, b), test::transpose(test::from_tensor(f.codes, b)));
  double s = 0;
  for (size_t i = 0; i < X.v.size(); ++i) s += (X.v[i] - R.v[i]) * (X.v[i] - R.v[i]);
  return std::sqrt(s);
}

TEST(HamNMF, UpdatesMatchFormula) {
  auto g = seeded(1);
  auto x = torch::rand({2, 6, 10}, g, kF64), d = torch::rand({2, 6, 3}, g, kF64);
  for (double t : {1.0, 0.5}) {
    auto c = nmf_init_codes(x, d, t);
    for (int64_t b = 0; b < 2; ++b) {
      Mat X = test::from_tensor(x, b), D = test::from_tensor(d, b);
      EXPECT_LT(test::max_abs_diff(test::softmax_rows(test::matmul(test::transpose(X), D), t), c, b), 1e-13);
    }
  }
  auto c = nmf_init_codes(x, d, 1.0);
  auto c1 = nmf_update_codes(x, d, c);
  auto d1 = nmf_update_bases(x, d, c1);
  auto step = nmf_step(x, {d, c});
  EXPECT_TRUE(torch::equal(step.codes, c1));
  EXPECT_TRUE(torch::equal(step.bases, d1));
  for (int64_t b = 0; b < 2; ++b) {
    Mat X = test::from_tensor(x, b), D = test::from_tensor(d, b), C = test::from_tensor(c, b);
    // C ← C ⊙ (XᵀD) / (C DᵀD + ε)
    Mat C1 = test::nmf_update(C, test::matmul(test::transpose(X), D),
                              test::matmul(C, test::matmul(test::transpose(D), D)), 1e-6);
    EXPECT_LT(test::max_abs_diff(C1, c1, b), 1e-12);
    // D ← D ⊙ (X C) / (D CᵀC + ε), with the new C
    Mat D1 = test::nmf_update(D, test::matmul(X, C1), test::matmul(D, test::matmul(test::transpose(C1), C1)), 1e-6);
    EXPECT_LT(test::max_abs_diff(D1, d1, b), 1e-12);
  }
  // The float32 path agrees with the double formula to float precision.
  auto c1f = nmf_update_codes(x.to(torch::kFloat), d.to(torch::kFloat), c.to(torch::kFloat));
  EXPECT_TRUE(torch::allclose(c1f.to(torch::kDouble), c1, 1e-4, 1e-6));
}

TEST(HamNMF, ObjectiveNonIncreasingAndFactorsNonNegative) {
  auto g = seeded(2);
  auto x = torch::rand({2, 20, 50}, g, kF64);
  HamFactors f{torch::rand({2, 20, 5}, g, kF64), {}};
  f.codes = nmf_init_codes(x, f.bases, 1.0);
  for (int64_t b = 0; b < 2; ++b) {
    double prev = nmf_objective(x, f, b);
    HamFactors h = f;
    for (int k = 0; k < 40; ++k) {
      h.codes = nmf_update_codes(x, h.bases, h.codes);  // each half-step is monotone (Lee & Seung)
      const double after_codes = nmf_objective(x, h, b);
      h.bases = nmf_update_bases(x, h.bases, h.codes);
      const double after_bases = nmf_objective(x, h, b);
      // ε = 1e-6 in the denominators perturbs the exact MU by ~1e-6 relative.
      EXPECT_LE(after_codes, prev * (1 + 1e-6)) << "step " << k;
      EXPECT_LE(after_bases, after_codes * (1 + 1e-6)) << "step " << k;
      prev = after_bases;
      ASSERT_GE(h.codes.min().item<double>(), 0.0);
      ASSERT_GE(h.bases.min().item<double>(), 0.0);
    }
    if (b == 0) {
      EXPECT_LT(prev, 0.9 * nmf_objective(x, f, 0));  // and it actually decreased
    }
  }
}

TEST(HamNMF, RecoversExactlyLowRankMatrix) {
  auto g = seeded(3);
  auto w = torch::rand({1, 12, 3}, g, kF64), h = torch::rand({1, 3, 40}, g, kF64);
  auto x = torch::bmm(w, h);  // non-negative, rank 3
  HamSolverOptions o;
  o.steps = 3000;
  auto f = ham_decompose(x, torch::rand({1, 12, 3}, g, kF64), o);
  const double rel = nmf_objective(x, f, 0) / x.norm().item<double>();
  EXPECT_LT(rel, 2e-3);
  EXPECT_GE(f.codes.min().item<double>(), 0.0);
  EXPECT_GE(f.bases.min().item<double>(), 0.0);
}

TEST(HamVQ, StepAndFinalCodesMatchFormula) {
  auto g = seeded(4);
  auto x = torch::randn({2, 6, 10}, g, kF64), d = torch::randn({2, 6, 3}, g, kF64);
  for (double t : {0.01, 0.5}) {
    auto f = vq_step(x, d, t);
    auto c = vq_codes(x, d, t, /*detach_norm=*/true);
    for (int64_t b = 0; b < 2; ++b) {
      Mat X = test::from_tensor(x, b), D = test::from_tensor(d, b);
      // C = softmax_r(cos(X, D) / T), columns divided by (ε + Σ_n C), D' = X C
      Mat C = test::softmax_rows(
          test::matmul(test::transpose(test::normalize_columns(X, 1e-12)), test::normalize_columns(D, 1e-6)), t);
      for (int64_t j = 0; j < C.cols; ++j) {
        double s = 0;
        for (int64_t i = 0; i < C.rows; ++i) s += C(i, j);
        for (int64_t i = 0; i < C.rows; ++i) C(i, j) /= (s + 1e-6);
      }
      EXPECT_LT(test::max_abs_diff(C, f.codes, b), 1e-10);
      EXPECT_LT(test::max_abs_diff(test::matmul(X, C), f.bases, b), 1e-10);
      // Final codes: softmax_r((X / (ε + ‖X‖))ᵀ normalise(D) / T)
      Mat Xs = X;
      for (int64_t j = 0; j < X.cols; ++j) {
        double s = 0;
        for (int64_t i = 0; i < X.rows; ++i) s += X(i, j) * X(i, j);
        for (int64_t i = 0; i < X.rows; ++i) Xs(i, j) = X(i, j) / (std::sqrt(s) + 1e-6);
      }
      Mat Cf = test::softmax_rows(test::matmul(test::transpose(Xs), test::normalize_columns(D, 1e-6)), t);
      EXPECT_LT(test::max_abs_diff(Cf, c, b), 1e-10);
    }
  }
}

TEST(HamCD, StepMatchesFormula) {
  auto g = seeded(5);
  auto x = torch::randn({2, 6, 10}, g, kF64);
  auto d = ham_random_bases(HamType::kCD, 2, 6, 3, kF64, g);
  for (double t : {0.01, 0.5}) {
    auto f = cd_step(x, d, t);
    for (int64_t b = 0; b < 2; ++b) {
      Mat X = test::from_tensor(x, b), D = test::from_tensor(d, b);
      Mat C = test::softmax_rows(test::matmul(test::transpose(test::normalize_columns(X, 1e-12)), D), t);
      for (int64_t j = 0; j < C.cols; ++j) {
        double s = 0;
        for (int64_t i = 0; i < C.rows; ++i) s += C(i, j);
        for (int64_t i = 0; i < C.rows; ++i) C(i, j) /= (s + 1e-6);
      }
      EXPECT_LT(test::max_abs_diff(C, f.codes, b), 1e-10);
      EXPECT_LT(test::max_abs_diff(test::normalize_columns(test::matmul(X, C), 1e-6), f.bases, b), 1e-10);
    }
  }
}

TEST(HamCD, FinalCodesAreRidgeSolution) {
  auto g = seeded(6);
  auto x = torch::randn({2, 8, 12}, g, kF64);
  HamSolverOptions o;
  o.type = HamType::kCD;
  o.temperature = 0.01;
  for (double beta : {0.01, 0.1}) {
    o.beta = beta;
    auto f = ham_decompose(x, ham_random_bases(HamType::kCD, 2, 8, 4, kF64, g), o);
    for (int64_t b = 0; b < 2; ++b) {
      Mat X = test::from_tensor(x, b), D = test::from_tensor(f.bases, b);
      Mat A = test::matmul(test::transpose(D), D);
      for (int64_t i = 0; i < A.rows; ++i) A(i, i) += beta;
      Mat Ct = test::solve(A, test::matmul(test::transpose(D), X));  // (DᵀD + βI)⁻¹ DᵀX: (r, n)
      EXPECT_LT(test::max_abs_diff(test::transpose(Ct), f.codes, b), 1e-10);
    }
  }
}

TEST(HamBases, RandomInitDistributions) {
  auto g = seeded(7);
  auto nmf = ham_random_bases(HamType::kNMF, 4, 64, 8, kF64, g);
  EXPECT_GE(nmf.min().item<double>(), 0.0);
  EXPECT_LT(nmf.max().item<double>(), 1.0);
  EXPECT_NEAR(nmf.mean().item<double>(), 0.5, 0.03);  // U[0,1), unnormalised
  auto cd = ham_random_bases(HamType::kCD, 4, 64, 8, kF64, g);
  EXPECT_TRUE(torch::allclose(cd.norm(2, {1}), torch::ones({4, 8}, kF64)));  // unit columns
  EXPECT_NEAR(cd.mean().item<double>(), 0.0, 0.02);
  // Same seed, same draw.
  EXPECT_TRUE(torch::equal(ham_random_bases(HamType::kVQ, 2, 5, 3, kF64, seeded(9)),
                           ham_random_bases(HamType::kVQ, 2, 5, 3, kF64, seeded(9))));
}

}  // namespace
}  // namespace hamgan
