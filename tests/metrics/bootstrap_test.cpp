// The bootstrap FID interval: each resample's FID against pytorch-fid on the
// same resampled rows (tests/python/bootstrap_reference.py), numpy's percentiles,
// and the interval's behaviour (contains the estimate, narrows with n, seeded).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "metrics/bootstrap.h"
#include "metrics/npz.h"
#include "metrics/stats.h"
#include "tests/metrics/reference_json.h"

using namespace hamgan;

namespace {

FeatureStats stats_of(const torch::Tensor& x) {
  RunningStats r;
  r.add(x);
  return r.finish();
}

}  // namespace

TEST(Bootstrap, EveryResampleMatchesPytorchFidOnTheSameRows) {
  auto dir = test::temp_dir("bootstrap");
  torch::manual_seed(21);
  const auto x = torch::randn({400, 8}, torch::kFloat64) * 1.1 + 0.4;
  const auto fixed = stats_of(torch::randn({500, 8}, torch::kFloat64));
  const auto indices = bootstrap_indices(400, 60, 7);
  ASSERT_EQ(indices.sizes(), (std::vector<int64_t>{60, 400}));
  write_npz(dir + "/in.npz", {{"features", x}, {"mu", fixed.mu}, {"sigma", fixed.sigma}, {"indices", indices}}, false);
  RUN_REFERENCE("bootstrap_reference.py", dir + "/in.npz " + dir + "/out.json");
  const auto ref = test::read_json(dir + "/out.json");
  const auto r = bootstrap_fid(x, fixed, indices);
  ASSERT_EQ(r.values.size(), ref["values"].size());
  double worst = 0;
  for (size_t b = 0; b < r.values.size(); ++b) {
    const double expected = ref["values"][b].get<double>();
    EXPECT_NEAR(r.values[b], expected, 1e-9 * expected) << "resample " << b;
    worst = std::max(worst, std::abs(r.values[b] - expected) / expected);
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", worst);
  RecordProperty("max_relative_difference", text);
  EXPECT_NEAR(r.lower, ref["lower"].get<double>(), 1e-9 * r.lower);
  EXPECT_NEAR(r.upper, ref["upper"].get<double>(), 1e-9 * r.upper);
  EXPECT_NEAR(r.std, ref["std"].get<double>(), 1e-7 * r.std);
  RecordProperty("interval", std::to_string(r.lower) + " " + std::to_string(r.upper));
}

TEST(Bootstrap, PercentileIsNumpysLinearRule) {
  // np.percentile([4, 1, 3, 2], [0, 2.5, 50, 97.5, 100]) = [1, 1.075, 2.5, 3.925, 4]
  const std::vector<double> v{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(v, 2.5), 1.075);
  EXPECT_DOUBLE_EQ(percentile(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile(v, 97.5), 3.925);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 4.0);
}

TEST(Bootstrap, SeededContainsTheEstimateAndNarrowsWithMoreSamples) {
  torch::manual_seed(22);
  const auto fixed = stats_of(torch::randn({20000, 8}, torch::kFloat64));
  double width[2];
  const int64_t sizes[2] = {300, 3000};
  for (int i = 0; i < 2; ++i) {
    // A shifted, wider cloud: FID ≈ 8·0.5² + 8·(1.1 − 1)² = 2.08, far above its finite-n bias.
    const auto x = torch::randn({sizes[i], 8}, torch::kFloat64) * 1.1 + 0.5;
    const auto s = stats_of(x);
    const double point = frechet_distance(s.mu, s.sigma, fixed.mu, fixed.sigma).distance;
    const auto r = bootstrap_fid(x, fixed, BootstrapOptions{200, 3, 0.95});
    EXPECT_LE(r.lower, point) << "n=" << sizes[i];
    EXPECT_GE(r.upper, point) << "n=" << sizes[i];
    width[i] = r.upper - r.lower;
    const auto again = bootstrap_fid(x, fixed, BootstrapOptions{200, 3, 0.95});
    EXPECT_EQ(again.values, r.values);  // same seed, same draws
    const auto other = bootstrap_fid(x, fixed, BootstrapOptions{200, 4, 0.95});
    EXPECT_NE(other.values, r.values);
  }
  // The spread falls like 1/√n: 10× the samples, about a third of the width.
  EXPECT_LT(width[1], 0.6 * width[0]);
  RecordProperty("widths", std::to_string(width[0]) + " " + std::to_string(width[1]));
}
