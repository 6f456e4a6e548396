// Seed statistics against scipy.stats on fixed synthetic per-seed FIDs
// (tests/python/seed_statistics_reference.py): t quantiles and CDF, the 95%
// interval of the mean, Welch's t-test and Holm's correction; plus closed forms
// that need no Python, and the edge cases a report meets (one seed, no spread).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/errors.h"
#include "experiments/compare_statistics.h"
#include "experiments/seed_statistics.h"
#include "tests/metrics/reference_json.h"

using namespace hamgan;

namespace {

// Relative to max(1, |value|). 1e-6 would do for a report; the continued
// fraction is good to ~1e-13, and a looser bound would hide a regression.
constexpr double kTolerance = 1e-9;

// The reference file, written once per test process into its scratch directory.
nlohmann::json reference(const std::string& dir) { return test::read_json(dir + "/reference.json"); }

double scaled_error(double got, double expected) { return std::abs(got - expected) / std::max(1.0, std::abs(expected)); }

void record_worst(const char* key, double worst) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", worst);
  testing::Test::RecordProperty(key, text);
  std::printf("%s = %s\n", key, text);
}

std::vector<double> values_of(const nlohmann::json& j) { return j.get<std::vector<double>>(); }

}  // namespace

TEST(SeedStatistics, StudentTQuantileAndCdfMatchScipy) {
  const std::string dir = test::scratch_dir("compare", "t_reference");
  RUN_REFERENCE("seed_statistics_reference.py", dir + "/reference.json");
  const auto ref = reference(dir);
  double worst_ppf = 0, worst_cdf = 0;
  for (const auto& row : ref["ppf"]) {
    const double p = row["p"], df = row["df"], expected = row["value"];
    const double got = student_t_quantile(p, df);
    EXPECT_LE(scaled_error(got, expected), kTolerance) << "t.ppf(" << p << ", " << df << ")";
    worst_ppf = std::max(worst_ppf, scaled_error(got, expected));
  }
  for (const auto& row : ref["cdf"]) {
    const double t = row["t"], df = row["df"], expected = row["value"];
    const double got = student_t_cdf(t, df);
    EXPECT_NEAR(got, expected, kTolerance) << "t.cdf(" << t << ", " << df << ")";
    worst_cdf = std::max(worst_cdf, std::abs(got - expected));
  }
  record_worst("max_ppf_error", worst_ppf);
  record_worst("max_cdf_error", worst_cdf);
}

TEST(SeedStatistics, IntervalWelchAndHolmMatchScipy) {
  const std::string dir = test::scratch_dir("compare", "welch_reference");
  RUN_REFERENCE("seed_statistics_reference.py", dir + "/reference.json");
  const auto ref = reference(dir);
  double worst_interval = 0, worst_p = 0;
  std::vector<std::pair<std::string, std::vector<double>>> fids;
  for (const auto& row : ref["intervals"]) {
    const auto values = values_of(row["values"]);
    fids.push_back({row["name"], values});
    const MeanInterval m = mean_confidence_interval(values);
    ASSERT_TRUE(m.has_interval());
    EXPECT_LE(scaled_error(m.mean, row["mean"]), kTolerance);
    EXPECT_LE(scaled_error(m.std, row["std"]), kTolerance);
    EXPECT_LE(scaled_error(m.lower, row["lower"]), kTolerance) << row["name"];
    EXPECT_LE(scaled_error(m.upper, row["upper"]), kTolerance) << row["name"];
    worst_interval =
        std::max({worst_interval, scaled_error(m.lower, row["lower"]), scaled_error(m.upper, row["upper"])});
  }
  // compare_fids runs the same tests, in the same pair order, and adds Holm over them.
  const FidComparison comparison = compare_fids(fids);
  ASSERT_EQ(comparison.pairs.size(), ref["welch"].size());
  for (size_t i = 0; i < comparison.pairs.size(); ++i) {
    const auto& row = ref["welch"][i];
    const PairwiseFid& pair = comparison.pairs[i];
    ASSERT_EQ(pair.a, row["a"].get<std::string>());
    ASSERT_EQ(pair.b, row["b"].get<std::string>());
    ASSERT_TRUE(pair.test.tested);
    EXPECT_LE(scaled_error(pair.test.t, row["t"]), kTolerance) << pair.a << " vs " << pair.b;
    EXPECT_LE(scaled_error(pair.test.df, row["df"]), kTolerance) << pair.a << " vs " << pair.b;
    EXPECT_NEAR(pair.test.p, row["p"].get<double>(), kTolerance) << pair.a << " vs " << pair.b;
    EXPECT_EQ(pair.larger_than_noise(), row["p"].get<double>() < 0.05);
    worst_p = std::max(worst_p, std::abs(pair.test.p - row["p"].get<double>()));
  }
  const auto holm_in = values_of(ref["holm"]["p"]), holm_expected = values_of(ref["holm"]["adjusted"]);
  const auto holm = holm_adjusted(holm_in);
  double worst_holm = 0;
  for (size_t i = 0; i < holm.size(); ++i) {
    EXPECT_NEAR(holm[i], holm_expected[i], kTolerance) << "p[" << i << "] = " << holm_in[i];
    worst_holm = std::max(worst_holm, std::abs(holm[i] - holm_expected[i]));
  }
  const auto holm_pairwise = values_of(ref["holm"]["pairwise"]);
  for (size_t i = 0; i < comparison.pairs.size(); ++i)
    EXPECT_NEAR(comparison.pairs[i].holm_p, holm_pairwise[i], kTolerance) << "pair " << i;
  record_worst("max_interval_error", worst_interval);
  record_worst("max_welch_p_error", worst_p);
  record_worst("max_holm_error", worst_holm);
}

TEST(SeedStatistics, ClosedFormsWithoutPython) {
  // df = 1 is the Cauchy distribution, df = 2 has t = (2p − 1) / sqrt(2p(1 − p)).
  for (double p : {0.6, 0.9, 0.975, 0.995, 0.01}) {
    const double cauchy = std::tan(M_PI * (p - 0.5));
    EXPECT_NEAR(student_t_quantile(p, 1), cauchy, 1e-10 * std::max(1.0, std::abs(cauchy)));
    EXPECT_NEAR(student_t_quantile(p, 2), (2 * p - 1) / std::sqrt(2 * p * (1 - p)), 1e-12);
  }
  EXPECT_NEAR(student_t_quantile(0.975, 1e6), 1.959963984540054, 1e-5);  // the normal limit
  EXPECT_NEAR(regularized_incomplete_beta(1, 1, 0.3), 0.3, 1e-15);    // uniform
  EXPECT_NEAR(regularized_incomplete_beta(2, 1, 0.3), 0.09, 1e-15);   // x^a when b = 1
  EXPECT_DOUBLE_EQ(student_t_cdf(0, 5), 0.5);
  EXPECT_THROW(student_t_quantile(1.0, 3), Error);
  EXPECT_THROW(student_t_quantile(0.5, 0), Error);
}

TEST(SeedStatistics, OneSeedHasNoIntervalAndNoTest) {
  const MeanInterval one = mean_confidence_interval({12.5});
  EXPECT_EQ(one.n, 1);
  EXPECT_FALSE(one.has_interval());
  EXPECT_DOUBLE_EQ(one.mean, 12.5);
  EXPECT_FALSE(mean_confidence_interval({}).has_interval());
  EXPECT_FALSE(welch_t_test({12.5}, {10, 11, 12}).tested);
  // No spread on either side: a difference is certain, none is p = 1 (scipy: p = 0 and nan).
  EXPECT_DOUBLE_EQ(welch_t_test({3, 3}, {4, 4, 4}).p, 0.0);
  EXPECT_DOUBLE_EQ(welch_t_test({3, 3}, {3, 3}).p, 1.0);
  // Holm on one test changes nothing; on two it doubles the smaller and keeps the order.
  EXPECT_EQ(holm_adjusted({0.03}), std::vector<double>{0.03});
  EXPECT_EQ(holm_adjusted({0.04, 0.01}), (std::vector<double>{0.04, 0.02}));
  EXPECT_TRUE(holm_adjusted({}).empty());
}

TEST(SeedStatistics, BestAndWithinNoiseMarks) {
  const FidComparison c = compare_fids({{"far", {20.1, 19.7, 20.4, 20.0}},
                                        {"good", {10.0, 10.5, 9.8, 10.2}},
                                        {"twin", {10.0, 10.5, 9.8, 10.2}},
                                        {"single", {11.0}},
                                        {"unmeasured", {}}});
  ASSERT_EQ(c.configs.size(), 5u);
  EXPECT_TRUE(c.configs[1].best);  // the first of two equal means
  EXPECT_FALSE(c.configs[2].best);
  EXPECT_TRUE(c.configs[2].within_noise);
  EXPECT_DOUBLE_EQ(c.configs[2].vs_best.p, 1.0);
  EXPECT_FALSE(c.configs[0].within_noise);
  EXPECT_LT(c.configs[0].vs_best.p, 1e-6);
  EXPECT_TRUE(c.configs[3].within_noise);  // one seed: nothing shows it differs
  EXPECT_FALSE(c.configs[3].vs_best.tested);
  EXPECT_FALSE(c.configs[4].within_noise || c.configs[4].best);
  EXPECT_EQ(c.pairs.size(), 6u);  // 4 configs with FID: 4·3/2 pairs
}
