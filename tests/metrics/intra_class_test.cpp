// Intra-class FID against per-class pytorch-fid values (tests/python/intra_class_reference.py),
// and the class labels image sources give.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <numeric>

#include "core/errors.h"
#include "data/image_io.h"
#include "metrics/intra_class.h"
#include "metrics/npz.h"
#include "metrics/image_source.h"
#include "tests/metrics/reference_json.h"

using namespace hamgan;

namespace {

// Classes 0..3 on A, 0..2 and 5 on B; class 2 has one sample on B and classes 3
// and 5 are on one side only, so only 0 and 1 are compared.
struct Labelled {
  torch::Tensor features, labels;
};
Labelled side(const std::vector<int64_t>& counts, const std::vector<int64_t>& classes, double scale, int64_t d) {
  std::vector<torch::Tensor> f, y;
  for (size_t i = 0; i < counts.size(); ++i) {
    f.push_back(torch::randn({counts[i], d}, torch::kFloat64) * scale + 0.5 * double(classes[i]));
    y.push_back(torch::full({counts[i]}, classes[i], torch::kInt64));
  }
  auto perm = torch::randperm(std::accumulate(counts.begin(), counts.end(), int64_t{0}));  // classes interleaved
  return {torch::cat(f).index_select(0, perm), torch::cat(y).index_select(0, perm)};
}

}  // namespace

TEST(IntraClass, PerClassFidMatchesPytorchFidOnEachClass) {
  auto dir = test::temp_dir("intra_class");
  torch::manual_seed(5);
  const auto a = side({60, 45, 30, 20}, {0, 1, 2, 3}, 1.0, 6);
  const auto b = side({50, 70, 1, 25}, {0, 1, 2, 5}, 1.3, 6);
  write_npz(dir + "/in.npz",
            {{"features_a", a.features}, {"labels_a", a.labels}, {"features_b", b.features}, {"labels_b", b.labels}},
            false);
  RUN_REFERENCE("intra_class_reference.py", dir + "/in.npz " + dir + "/out.json");
  const auto ref = test::read_json(dir + "/out.json");
  const auto r = intra_class_fid(a.features, a.labels, b.features, b.labels);
  ASSERT_EQ(r.classes.size(), ref["classes"].size());
  for (size_t i = 0; i < r.classes.size(); ++i) {
    EXPECT_EQ(r.classes[i].label, ref["classes"][i].get<int64_t>());
    const double expected = ref["fid"][i].get<double>();
    EXPECT_NEAR(r.classes[i].fid, expected, 1e-8 * expected) << "class " << r.classes[i].label;
    char text[80];
    std::snprintf(text, sizeof text, "%.12g vs %.12g", r.classes[i].fid, expected);
    RecordProperty("class" + std::to_string(r.classes[i].label), text);
  }
  EXPECT_NEAR(r.mean, ref["mean"].get<double>(), 1e-8 * r.mean);
  EXPECT_EQ(r.skipped, (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(r.min_samples, 45);
  EXPECT_EQ(r.classes[0].n_a, 60);
  EXPECT_EQ(r.classes[0].n_b, 50);
  const auto worst = worst_classes(r, 1);
  ASSERT_EQ(worst.size(), 1u);
  EXPECT_EQ(worst[0].fid, std::max(r.classes[0].fid, r.classes[1].fid));
}

// The per-class statistics equal the mean and np.cov-style covariance of each class's rows.
TEST(IntraClass, ClassStatsAreEachClassesMoments) {
  torch::manual_seed(6);
  const auto a = side({40, 33}, {4, 9}, 2.0, 5);
  const auto stats = class_stats(a.features, a.labels);
  ASSERT_EQ(stats.size(), 2u);
  for (int64_t c : {4, 9}) {
    const auto rows = a.features.index({a.labels == c});
    EXPECT_EQ(stats.at(c).n, rows.size(0));
    EXPECT_LE((stats.at(c).mu - rows.mean(0)).abs().max().item<double>(), 1e-12);
    EXPECT_LE((stats.at(c).sigma - torch::cov(rows.t())).abs().max().item<double>(), 1e-12);
  }
}

TEST(IntraClass, NoSharedClassIsAnError) {
  const auto f = torch::randn({10, 3}, torch::kFloat64);
  EXPECT_THROW(intra_class_fid(f, torch::zeros({10}, torch::kInt64), f, torch::ones({10}, torch::kInt64)), DataError);
}

// Data sets give their labels (class sub-folders), flat folders none, callable sources what their label maker says.
TEST(ImageSources, LabelsOfDataSetsAndMakers) {
  namespace fs = std::filesystem;
  auto dir = test::temp_dir("source_labels");
  for (int k = 0; k < 3; ++k) {
    fs::create_directories(dir + "/classes/c" + std::to_string(k));
    for (int i = 0; i < 2; ++i)
      save_png(torch::full({1, 8, 8}, 40 * k, torch::kUInt8), dir + "/classes/c" + std::to_string(k) + "/" + std::to_string(i) + ".png");
  }
  fs::create_directories(dir + "/flat");
  for (int i = 0; i < 3; ++i) save_png(torch::zeros({1, 8, 8}, torch::kUInt8), dir + "/flat/" + std::to_string(i) + ".png");
  DatasetSpec spec;
  spec.size = 8;
  spec.path = dir + "/classes";
  auto classes = make_dataset_source(open_dataset(spec));
  ASSERT_TRUE(classes->labelled());
  const auto y = classes->labels(1, 4);
  EXPECT_TRUE(torch::equal(y, torch::tensor({0, 1, 1, 2}, torch::kInt64))) << y;
  // Labels follow the images: class k's images are 40·k everywhere.
  const auto images = classes->batch(1, 4);
  EXPECT_TRUE(torch::equal(images.select(1, 0).select(1, 0).select(1, 0).to(torch::kInt64), y * 40));
  spec.path = dir + "/flat";
  auto flat = make_dataset_source(open_dataset(spec));
  EXPECT_FALSE(flat->labelled());
  auto maker = make_callable_source([](int64_t n, int64_t) { return torch::zeros({n, 1, 4, 4}, torch::kUInt8); }, 6,
                                    "labelled maker",
                                    [](int64_t n, int64_t off) { return torch::arange(off, off + n, torch::kInt64) % 3; });
  ASSERT_TRUE(maker->labelled());
  EXPECT_TRUE(torch::equal(maker->labels(2, 3), torch::tensor({2, 0, 1}, torch::kInt64)));
  auto bad = make_callable_source([](int64_t n, int64_t) { return torch::zeros({n, 1, 4, 4}, torch::kUInt8); }, 6,
                                  "bad maker", [](int64_t n, int64_t) { return torch::zeros({n}); });
  EXPECT_THROW(bad->labels(0, 2), DataError);
  EXPECT_FALSE(make_callable_source([](int64_t n, int64_t) { return torch::zeros({n, 1, 4, 4}, torch::kUInt8); }, 6,
                                    "unlabelled")
                   ->labelled());
}
