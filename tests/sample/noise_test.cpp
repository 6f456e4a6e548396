// FixedNoise (gan/sample/noise.h): the seeded z and class-balanced labels every
// sampling path draws, the same whatever the batching.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/rng.h"
#include "gan/sample/noise.h"

namespace hamgan {
namespace {

TEST(FixedNoise, SameSeedSameTensorsOtherSeedOtherZ) {
  const FixedNoise a(50, 8, 10, /*seed=*/3), b(50, 8, 10, 3), c(50, 8, 10, 4);
  EXPECT_TRUE(torch::equal(a.z(), b.z()));
  EXPECT_TRUE(torch::equal(a.labels(), b.labels()));
  EXPECT_FALSE(torch::equal(a.z(), c.z()));
  EXPECT_EQ(a.z().sizes(), (std::vector<int64_t>{50, 8}));
  EXPECT_EQ(a.labels().scalar_type(), torch::kLong);
}

// The values the sampling paths drew before FixedNoise existed: one sample_z from a private generator.
TEST(FixedNoise, EqualsOneDrawFromAPrivateGenerator) {
  at::Generator gen = make_cpu_generator(11);
  EXPECT_TRUE(torch::equal(FixedNoise(37, 5, 3, 11).z(), sample_z(37, 5, 0.0, gen)));
  // In chunks: consecutive draws, as standing statistics make them batch by batch.
  at::Generator gen2 = make_cpu_generator(11);
  const torch::Tensor first = sample_z(16, 5, 0.0, gen2), second = sample_z(16, 5, 0.0, gen2),
                      third = sample_z(5, 5, 0.0, gen2);
  EXPECT_TRUE(torch::equal(FixedNoise(37, 5, 3, 11, 0.0, /*chunk=*/16).z(), torch::cat({first, second, third})));
}

TEST(FixedNoise, SlicesByOffsetMakeUpTheWhole) {
  const FixedNoise noise(40, 6, 7, 5);
  std::vector<torch::Tensor> z, y;
  for (int64_t offset = 0, count = 3; offset < noise.size(); offset += count, count += 4) {
    const NoiseBatch b = noise.slice(offset, std::min(count, noise.size() - offset));
    z.push_back(b.z);
    y.push_back(b.labels);
  }
  EXPECT_TRUE(torch::equal(torch::cat(z), noise.z()));
  EXPECT_TRUE(torch::equal(torch::cat(y), noise.labels()));
  EXPECT_ANY_THROW(noise.slice(35, 6));
}

TEST(FixedNoise, LabelsAreIModK) {
  const FixedNoise noise(23, 4, 5, 0);
  for (int64_t i = 0; i < noise.size(); ++i) EXPECT_EQ(noise.labels()[i].item<int64_t>(), i % 5) << i;
  EXPECT_TRUE(torch::equal(noise.slice(8, 5).labels, balanced_labels(8, 5, 5)));
  EXPECT_TRUE(torch::equal(balanced_labels(8, 5, 3), torch::tensor({2, 0, 1, 2, 0}, torch::kInt64)));
}

// Blocks with eval-time randomness (NMF bases) follow the seed through the global stream.
TEST(FixedNoise, SeedsTheGlobalStream) {
  ScopedRngRestore keep_rng;
  FixedNoise(4, 2, 2, 9);
  const torch::Tensor after_noise = torch::randn({5});
  torch::manual_seed(9);
  EXPECT_TRUE(torch::equal(after_noise, torch::randn({5})));
}

TEST(FixedNoise, TruncationBoundsEveryEntry) {
  const FixedNoise noise(200, 8, 10, 1, /*truncation=*/0.5);
  EXPECT_LE(noise.z().abs().max().item<float>(), 0.5f);
}

// Kolmogorov–Smirnov distance of the draws from the truncated normal's CDF,
// F(x) = (Phi(x) - Phi(-T)) / (Phi(T) - Phi(-T)), written with erf.
double ks_distance(torch::Tensor z, double t) {
  const torch::Tensor sorted = std::get<0>(z.flatten().to(torch::kDouble).sort());
  const auto x = sorted.accessor<double, 1>();
  const double n = static_cast<double>(sorted.numel()), phi_t = std::erf(t / std::sqrt(2.0));
  double worst = 0;
  for (int64_t i = 0; i < sorted.numel(); ++i) {
    const double f = (std::erf(x[i] / std::sqrt(2.0)) + phi_t) / (2 * phi_t);
    worst = std::max({worst, std::abs(f - i / n), std::abs(f - (i + 1) / n)});
  }
  return worst;
}

TEST(SampleZ, TinyTruncationEndsAndStaysInRange) {
  at::Generator gen = make_cpu_generator(5);
  const torch::Tensor z = sample_z(64, 128, 1e-9, gen);  // accepted by rejection with p ~ 8e-10: used to loop
  EXPECT_LE(z.abs().max().item<double>(), 1e-9);
  EXPECT_GT(z.abs().max().item<double>(), 0.0);
  EXPECT_LT(ks_distance(z, 1e-9), 0.02);  // uniform on [-T, T] at this scale, which the CDF reduces to
}

TEST(SampleZ, TruncatedDrawsFollowTheTruncatedNormal) {
  for (double t : {0.5, 0.02, 2.0}) {  // rejection only, rejection then inverse CDF, rejection only
    at::Generator gen = make_cpu_generator(11);
    const torch::Tensor z = sample_z(200, 100, t, gen);
    EXPECT_LE(z.abs().max().item<double>(), t);
    // 20000 draws: the 1% critical KS distance is 1.63 / sqrt(20000) = 0.0115.
    EXPECT_LT(ks_distance(z, t), 0.0115) << "T = " << t;
  }
}

}  // namespace
}  // namespace hamgan
