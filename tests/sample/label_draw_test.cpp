// The label protocols (gan/sample/label_draw.h): balanced is i mod K, random is
// uniform, dataset follows a data set's class frequencies, each reproducible
// from its seed and none of them moving the z drawn from the same seed.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/errors.h"
#include "data/image_io.h"
#include "gan/sample/label_draw.h"
#include "gan/sample/noise.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

// Counts of each class among `labels`, as doubles.
std::vector<double> counts(const torch::Tensor& labels, int64_t k) {
  const torch::Tensor c = torch::bincount(labels, {}, k).to(torch::kFloat64);
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + k);
}

TEST(LabelDraw, BalancedIsIModK) {
  EXPECT_TRUE(torch::equal(draw_labels(23, 7, 5, LabelDraw{}), torch::arange(23, torch::kInt64).remainder(7)));
}

TEST(LabelDraw, RandomIsUniformAndFollowsItsSeed) {
  const LabelDraw random{LabelMode::random, {}, ""};
  const torch::Tensor a = draw_labels(20000, 10, 1, random);
  EXPECT_TRUE(torch::equal(a, draw_labels(20000, 10, 1, random)));
  EXPECT_FALSE(torch::equal(a, draw_labels(20000, 10, 2, random)));
  const double sd = std::sqrt(20000 * 0.1 * 0.9);  // binomial
  for (double c : counts(a, 10)) EXPECT_NEAR(c, 2000, 5 * sd);
}

TEST(LabelDraw, DatasetFollowsTheClassFrequencies) {
  LabelDraw d{LabelMode::dataset, torch::tensor({0.7, 0.2, 0.1, 0.0}, torch::kFloat64), "four classes"};
  const std::vector<double> c = counts(draw_labels(20000, 4, 3, d), 4);
  for (int k = 0; k < 4; ++k) {
    const double p = d.class_weights[k].item<double>();
    EXPECT_NEAR(c[k], 20000 * p, 5 * std::sqrt(20000 * p * (1 - p)) + 1e-9) << "class " << k;
  }
  EXPECT_THROW(draw_labels(10, 5, 3, d), ConfigError);  // four frequencies for five classes
}

TEST(LabelDraw, TheProtocolChangesTheClassesNotTheNoise) {
  const LabelDraw random{LabelMode::random, {}, ""};
  const FixedNoise balanced(64, 8, 10, 9), drawn(64, 8, 10, 9, 0.0, 0, &random);
  EXPECT_TRUE(torch::equal(balanced.z(), drawn.z()));
  EXPECT_FALSE(torch::equal(balanced.labels(), drawn.labels()));
  EXPECT_TRUE(torch::equal(drawn.labels(), draw_labels(64, 10, 9, random)));
}

TEST(LabelDraw, FrequenciesAreCountedOnTheDataSet) {
  const std::string dir = test::scratch_dir("sample", "label_frequencies");
  const int per_class[3] = {6, 3, 1};
  for (int k = 0; k < 3; ++k) {
    fs::create_directories(dir + "/c" + std::to_string(k));
    for (int i = 0; i < per_class[k]; ++i)
      save_png(torch::full({3, 8, 8}, 10 * i, torch::kUInt8), dir + "/c" + std::to_string(k) + "/" + std::to_string(i) + ".png");
  }
  DatasetSpec spec;
  spec.path = dir;
  spec.size = 8;
  const LabelDraw d = dataset_label_draw(spec);
  EXPECT_TRUE(torch::allclose(d.class_weights, torch::tensor({0.6, 0.3, 0.1}, torch::kFloat64)));
  EXPECT_EQ(d.describe(), "dataset (class frequencies of " + dir + ")");
  DatasetSpec none;
  none.path = "";
  EXPECT_THROW(make_label_draw(LabelMode::dataset, none, "fid"), ConfigError);
}

}  // namespace
}  // namespace hamgan
