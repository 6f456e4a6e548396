// IS and KID against torch-fidelity (tests/python/scores_reference.py).
#include <gtest/gtest.h>

#include <cmath>

#include "metrics/npz.h"
#include "metrics/scores.h"
#include "tests/metrics/helpers.h"

using namespace hamgan;

TEST(Scores, InceptionScoreAndKidMatchTorchFidelity) {
  auto dir = test::temp_dir("scores");
  RUN_REFERENCE("scores_reference.py", dir);
  auto r = read_npz(dir + "/scores.npz");
  auto is = inception_score(r["logits"], 10);
  EXPECT_NEAR(is.mean, r["is_mean"].item<double>(), 1e-9 * is.mean);
  EXPECT_NEAR(is.std, r["is_std"].item<double>(), 1e-9 * is.mean);
  // One subset as large as the sets is a permutation: deterministic for any RNG.
  KidOptions o;
  o.subsets = 1;
  o.subset_size = r["x"].size(0);
  auto kid = kernel_inception_distance(r["x"], r["y"], o);
  EXPECT_NEAR(kid.mean, r["kid_full"].item<double>(), 1e-9 * std::fabs(r["kid_full"].item<double>()));
  EXPECT_EQ(kid.std, 0.0);
}

TEST(Scores, InceptionScoreLimits) {
  // Confident and uniform over K classes → IS = K; identical predictions → IS = 1.
  const int64_t k = 8, n = 80;
  auto diverse = torch::full({n, k}, -1e4, torch::kFloat64);
  for (int64_t i = 0; i < n; ++i) diverse[i][i % k] = 0;
  EXPECT_NEAR(inception_score(diverse, 10).mean, double(k), 1e-9);
  EXPECT_NEAR(inception_score(torch::randn({1, k}).expand({n, k}), 10).mean, 1.0, 1e-9);
}

TEST(Scores, KidSubsetsNearZeroForSameDistribution) {
  torch::manual_seed(0);
  auto a = torch::randn({400, 16}), b = torch::randn({400, 16}), c = torch::randn({400, 16}) + 1.0;
  KidOptions o;
  o.subsets = 20;
  o.subset_size = 100;
  auto same = kernel_inception_distance(a, b, o), shifted = kernel_inception_distance(a, c, o);
  EXPECT_LT(std::fabs(same.mean), 3 * same.std + 1e-3);
  EXPECT_GT(shifted.mean, 10 * std::max(std::fabs(same.mean), same.std));
}
