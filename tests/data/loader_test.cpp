// The loader: content depends only on (seed, epoch, index), never on worker
// count or timing; epochs are permutations; values and flips are exact.
#include <algorithm>

#include "core/errors.h"
#include "data/loader.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

// Example i: label i, pixel (c, y, x) = (31·i + 7·c + 3·y + x) mod 256.
class Synthetic : public Dataset {
 public:
  explicit Synthetic(int64_t n, int64_t bad = -1) : n_(n), bad_(bad) {}
  int64_t size() const override { return n_; }
  Example get(int64_t i) const override {
    if (i == bad_) throw DataError("synthetic: example " + std::to_string(i) + " is unreadable");
    auto c = torch::arange(2).view({2, 1, 1}), y = torch::arange(5).view({1, 5, 1}), x = torch::arange(6).view({1, 1, 6});
    return {((31 * i + 7 * c + 3 * y + x) % 256).to(torch::kUInt8), i};
  }
  int64_t num_classes() const override { return n_; }
  int64_t channels() const override { return 2; }
  int64_t height() const override { return 5; }
  int64_t width() const override { return 6; }
  std::string describe() const override { return "synthetic"; }

 private:
  int64_t n_, bad_;
};

std::vector<Batch> take(DataLoader& l, int k) {
  std::vector<Batch> out;
  for (int i = 0; i < k; ++i) out.push_back(l.next());
  return out;
}

// Data-parallel shards: each of 3 ranks takes a disjoint third of every global
// batch, flips included, and together they are exactly the single loader's
// batches, across epoch ends and from a resumed position.
TEST(Loader, ShardsAreDisjointSlicesOfTheGlobalBatch) {
  auto ds = std::make_shared<Synthetic>(50);
  LoaderOptions o;
  o.batch_size = 12;
  o.seed = 7;
  o.flip = true;
  DataLoader whole(ds, o);
  const auto global = take(whole, 9);  // 4 batches per epoch
  std::vector<std::vector<Batch>> shards;
  for (int64_t r = 0; r < 3; ++r) {
    LoaderOptions so = o;
    so.shard = r;
    so.shards = 3;
    DataLoader l(ds, so);
    shards.push_back(take(l, 9));
    EXPECT_EQ(shards.back()[0].images.size(0), 4);
  }
  for (size_t b = 0; b < global.size(); ++b) {
    const auto images = torch::cat({shards[0][b].images, shards[1][b].images, shards[2][b].images});
    const auto labels = torch::cat({shards[0][b].labels, shards[1][b].labels, shards[2][b].labels});
    EXPECT_TRUE(torch::equal(images, global[b].images)) << b;
    EXPECT_TRUE(torch::equal(labels, global[b].labels)) << b;
    const auto flips = torch::cat({shards[0][b].flips, shards[1][b].flips, shards[2][b].flips});
    EXPECT_TRUE(torch::equal(flips, global[b].flips)) << b;
    EXPECT_EQ(std::get<0>(torch::_unique(labels)).numel(), 12) << b;  // disjoint: 12 distinct examples
  }
  LoaderOptions so = o;
  so.shard = 1;
  so.shards = 3;
  DataLoader from_first(ds, so);
  from_first.next();
  DataLoader resumed(ds, so, from_first.position());
  EXPECT_TRUE(torch::equal(resumed.next().images, shards[1][1].images));
  so.shards = 5;  // 12 does not split into 5
  EXPECT_THROW(DataLoader(ds, so), ConfigError);
}

TEST(Loader, SameSeedSameBatchesWhateverTheThreads) {
  auto ds = std::make_shared<Synthetic>(50);
  LoaderOptions o;
  o.batch_size = 8;
  o.seed = 42;
  o.flip = true;
  std::vector<std::vector<Batch>> runs;
  for (auto [workers, prefetch] : {std::pair{0, 1}, {1, 1}, {3, 2}, {4, 8}}) {
    o.workers = workers;
    o.prefetch = prefetch;
    DataLoader l(ds, o);
    runs.push_back(take(l, 14));  // 6 batches per epoch: crosses two epoch ends
  }
  for (size_t r = 1; r < runs.size(); ++r)
    for (size_t b = 0; b < runs[0].size(); ++b) {
      EXPECT_TRUE(torch::equal(runs[r][b].images, runs[0][b].images)) << r << " " << b;
      EXPECT_TRUE(torch::equal(runs[r][b].labels, runs[0][b].labels)) << r << " " << b;
      EXPECT_TRUE(torch::equal(runs[r][b].flips, runs[0][b].flips)) << r << " " << b;
    }
  o.seed = 43;
  DataLoader other(ds, o);
  EXPECT_FALSE(torch::equal(other.next().labels, runs[0][0].labels));
}

std::vector<int64_t> labels_of(const Batch& b) {
  auto l = b.labels.contiguous();
  return {l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel()};
}

TEST(Loader, EpochsArePermutationsWithoutRepeats) {
  auto ds = std::make_shared<Synthetic>(50);
  LoaderOptions o;
  o.batch_size = 8;
  DataLoader l(ds, o);
  std::vector<std::vector<int64_t>> epochs(2);
  for (int e = 0; e < 2; ++e)
    for (int b = 0; b < 6; ++b) {  // floor(50 / 8) = 6 full batches, 2 examples dropped
      auto v = labels_of(l.next());
      epochs[e].insert(epochs[e].end(), v.begin(), v.end());
    }
  for (auto& ep : epochs) {
    std::vector<int64_t> sorted = ep;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());  // no repeats
    EXPECT_EQ(sorted.size(), 48u);
    EXPECT_GE(sorted.front(), 0);
    EXPECT_LT(sorted.back(), 50);
  }
  EXPECT_NE(epochs[0], epochs[1]);  // a fresh permutation each epoch
  EXPECT_EQ(l.position().epoch, 1);
  EXPECT_EQ(l.position().index, 48);
}

TEST(Loader, ValuesAreNormalizedAndFlipsMirrorRows) {
  auto ds = std::make_shared<Synthetic>(40);
  LoaderOptions o;
  o.batch_size = 40;
  o.flip = true;
  o.seed = 5;
  DataLoader l(ds, o);
  auto b = l.next();
  // The loader hands out the stored bytes; the model's floats are made from them.
  ASSERT_EQ(b.images.sizes(), (std::vector<int64_t>{40, 2, 5, 6}));
  ASSERT_EQ(b.images.scalar_type(), torch::kUInt8);
  const auto x = model_images(b, torch::kCPU);
  ASSERT_EQ(x.scalar_type(), torch::kFloat32);
  int flipped = 0;
  for (int64_t k = 0; k < 40; ++k) {
    const int64_t i = b.labels[k].item<int64_t>();
    EXPECT_TRUE(torch::equal(b.images[k], ds->get(i).image)) << k;
    // torchvision ToTensor + Normalize(0.5, 0.5), in double.
    auto want = (ds->get(i).image.to(torch::kFloat64) / 255.0 - 0.5) / 0.5;
    auto got = x[k].to(torch::kFloat64);
    const bool mirrored = b.flips[k].item<bool>();
    EXPECT_TRUE(torch::allclose(got, mirrored ? want.flip({2}) : want, 0, 1e-6)) << k;
    flipped += mirrored;
  }
  EXPECT_GT(flipped, 8);   // about half of 40 flipped (binomial, p = 0.5)
  EXPECT_LT(flipped, 32);
  EXPECT_LE(x.max().item<float>(), 1.0f);
  EXPECT_GE(x.min().item<float>(), -1.0f);
  // Bit for bit the float32 values torchvision computes on the CPU.
  for (int v = 0; v < 256; v += 17) {
    Batch one{torch::full({1, 1, 1, 1}, v, torch::kUInt8), torch::zeros({1}, torch::kInt64),
              torch::zeros({1}, torch::kBool)};
    EXPECT_EQ(model_images(one, torch::kCPU).item<float>(), (float(v) / 255.0f - 0.5f) / 0.5f) << v;
  }
}

TEST(Loader, ResumingFromAPositionContinuesTheSameOrder) {
  auto ds = std::make_shared<Synthetic>(50);
  LoaderOptions o;
  o.batch_size = 8;
  o.seed = 9;
  o.flip = true;
  DataLoader a(ds, o);
  take(a, 7);
  const LoaderPosition p = a.position();
  auto rest = take(a, 4);
  DataLoader b(ds, o, p);
  auto again = take(b, 4);
  for (int k = 0; k < 4; ++k) {
    EXPECT_TRUE(torch::equal(rest[k].images, again[k].images)) << k;
    EXPECT_TRUE(torch::equal(rest[k].labels, again[k].labels)) << k;
    EXPECT_TRUE(torch::equal(rest[k].flips, again[k].flips)) << k;
  }
}

// A dataset whose images do not have the shape it declares.
class Liar : public Synthetic {
 public:
  Liar() : Synthetic(20) {}
  int64_t width() const override { return 7; }
};

TEST(Loader, ErrorsSurfaceAsExceptionsNotCrashes) {
  LoaderOptions lo;
  lo.batch_size = 4;
  lo.workers = 1;
  DataLoader liar(std::make_shared<Liar>(), lo);
  EXPECT_THROW(liar.next(), DataError);

  LoaderOptions o;
  o.batch_size = 60;
  EXPECT_THROW(DataLoader(std::make_shared<Synthetic>(50), o), ConfigError);
  o.batch_size = 10;
  o.workers = 2;
  DataLoader l(std::make_shared<Synthetic>(20, /*bad=*/13), o);
  // Both batches of epoch 0 together hold example 13, so one of them fails.
  EXPECT_THROW(take(l, 2), DataError);
}

}  // namespace
}  // namespace hamgan
