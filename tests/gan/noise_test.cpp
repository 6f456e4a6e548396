// FixedNoise (gan/sample/noise.h): the seeded z and class-balanced labels every
// sampling path draws, the same whatever the batching.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hamgan
