// Chunk windows: each chunk of a compressed file is decompressed once per
// epoch per rank, ranks read disjoint chunks, the order is exact on resume,
// and the batches are what the file holds, whatever the compression.
#include <algorithm>
#include <set>

#include "data/epoch_order.h"
#include "data/hdf5_common.h"
#include "data/hdf5_writer.h"
#include "data/loader.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

constexpr int64_t kN = 2600, kRows = 500;  // 6 chunks, the last holding 100 images

// Label i for image i, so a batch says which images it holds.
std::string write_file(const std::string& name, const std::string& compression) {
  const std::string path = test::fresh_dir("chunk_order") + "/" + name + ".hdf5";
  Hdf5Writer w(path, 3, 4, 4, kN, compression);
  for (int64_t i = 0; i < kN; ++i) {
    auto img = test::pattern_image(i);
    w.append(img.data_ptr<uint8_t>(), &i, 1);
  }
  w.finish(kN);
  return path;
}

std::shared_ptr<Dataset> open_file(const std::string& path) {
  DatasetSpec s;
  s.path = path;
  return open_dataset(s);
}

struct Epoch {
  std::vector<Batch> batches;
  int64_t decompressions = 0;
};

Epoch read_epoch(std::shared_ptr<Dataset> ds, LoaderOptions o, LoaderPosition start = {}, int64_t batches = -1) {
  const int64_t before = hdf5::chunk_decompressions();
  Epoch e;
  {
    DataLoader l(ds, o, start);
    if (batches < 0) batches = l.batches_per_epoch();
    for (int64_t b = 0; b < batches; ++b) e.batches.push_back(l.next());
  }
  e.decompressions = hdf5::chunk_decompressions() - before;
  return e;
}

std::vector<int64_t> labels(const Epoch& e) {
  std::vector<int64_t> out;
  for (const auto& b : e.batches)
    for (int64_t k = 0; k < b.labels.size(0); ++k) out.push_back(b.labels[k].item<int64_t>());
  return out;
}

// workers = 0 reads nothing ahead, so an epoch's count holds no chunk of the next.
LoaderOptions options(int64_t shard = 0, int64_t shards = 1, int64_t workers = 0) {
  LoaderOptions o;
  o.batch_size = 100;
  o.seed = 3;
  o.flip = true;
  o.workers = workers;
  o.shuffle_window = 2;
  o.shard = shard;
  o.shards = shards;
  return o;
}

TEST(ChunkOrder, EachChunkIsDecompressedOncePerEpochAndBatchesHoldTheFilesImages) {
  const std::string plain = write_file("none", "none");
  // Three threads decoding ahead give the same batches as one reading in turn.
  const Epoch reference = read_epoch(open_file(plain), options(0, 1, /*workers=*/3));
  EXPECT_EQ(reference.decompressions, 0);
  ASSERT_EQ(reference.batches.size(), size_t(kN / 100));
  for (const char* compression : {"lzf", "gzip"}) {
    auto ds = open_file(write_file(compression, compression));
    ASSERT_EQ(ds->chunk_rows(), kRows);
    const Epoch e = read_epoch(ds, options());
    EXPECT_EQ(e.decompressions, 6) << compression;  // one per chunk
    for (size_t b = 0; b < e.batches.size(); ++b) {
      EXPECT_TRUE(torch::equal(e.batches[b].images, reference.batches[b].images)) << compression << b;
      EXPECT_TRUE(torch::equal(e.batches[b].flips, reference.batches[b].flips)) << compression << b;
    }
  }
  for (const auto& b : reference.batches)
    for (int64_t k = 0; k < b.labels.size(0); ++k)
      ASSERT_TRUE(torch::equal(b.images[k], test::pattern_image(b.labels[k].item<int64_t>())));
  auto all = labels(reference);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::unique(all.begin(), all.end()) - all.begin(), kN);  // every image once
}

TEST(ChunkOrder, RanksReadDisjointChunksEachDecompressedOnceByItsRank) {
  auto ds = open_file(write_file("ranks", "lzf"));
  std::set<int64_t> seen_chunks;
  std::set<int64_t> seen_images;
  for (int64_t r = 0; r < 2; ++r) {
    const Epoch e = read_epoch(ds, options(r, 2));
    std::set<int64_t> chunks;
    for (int64_t i : labels(e)) {
      chunks.insert(i / kRows);
      EXPECT_TRUE(seen_images.insert(i).second) << "image " << i << " read by two ranks";
    }
    EXPECT_EQ(chunks.size(), 3u) << r;  // 6 chunks dealt to 2 ranks
    EXPECT_EQ(e.decompressions, int64_t(chunks.size())) << r;
    for (int64_t k : chunks) EXPECT_TRUE(seen_chunks.insert(k).second) << "chunk " << k << " read by two ranks";
    // The rank with the short chunk has 1100 images: both stop after 22 batches of 50.
    EXPECT_EQ(e.batches.size(), 22u);
  }
}

TEST(ChunkOrder, WindowsShuffleWithinAFewChunksAndMemoryHoldsAboutTwoWindows) {
  OrderSpec s{3000, kRows, 2, 100, 0, 1, 3};  // 6 full chunks
  const auto order = epoch_order(s, 0);
  // The first window's 1000 images come from exactly two chunks, and not in file order.
  std::set<int64_t> first_window;
  for (int i = 0; i < 1000; ++i) first_window.insert(order[i] / kRows);
  EXPECT_EQ(first_window.size(), 2u);
  EXPECT_FALSE(std::is_sorted(order.begin(), order.begin() + 1000));
  EXPECT_NE(epoch_order(s, 1), order);  // chunks and windows are redrawn each epoch
  DataLoader l(open_file(write_file("memory", "lzf")), options(0, 1, /*workers=*/3));
  for (int b = 0; b < 40; ++b) l.next();
  EXPECT_LE(l.peak_chunks(), 4);  // two windows of two chunks
  // Fewer chunks than ranks cannot give each rank a batch: a full shuffle instead.
  OrderSpec tiny{600, kRows, 2, 100, 0, 3, 3};
  EXPECT_FALSE(effective_order(tiny).windowed());
}

TEST(ChunkOrder, AResumedLoaderContinuesExactlyAndDecompressesOnlyWhatItStillNeeds) {
  auto ds = open_file(write_file("resume", "gzip"));
  const Epoch whole = read_epoch(ds, options(), {}, 40);  // crosses the end of epoch 0 (26 batches)
  DataLoader first(ds, options());
  for (int b = 0; b < 13; ++b) first.next();
  const LoaderPosition p = first.position();
  const Epoch rest = read_epoch(ds, options(), p, 27);
  for (size_t b = 0; b < rest.batches.size(); ++b) {
    EXPECT_TRUE(torch::equal(rest.batches[b].images, whole.batches[13 + b].images)) << b;
    EXPECT_TRUE(torch::equal(rest.batches[b].labels, whole.batches[13 + b].labels)) << b;
    EXPECT_TRUE(torch::equal(rest.batches[b].flips, whole.batches[13 + b].flips)) << b;
  }
}

TEST(ChunkOrder, InMemoryAndWindowZeroShuffleEveryImage) {
  const std::string path = write_file("memory_full", "lzf");
  DatasetSpec s;
  s.path = path;
  s.in_memory = true;
  EXPECT_EQ(open_dataset(s)->chunk_rows(), 0);
  LoaderOptions o = options();
  o.shuffle_window = 0;
  const Epoch e = read_epoch(open_file(path), o, {}, 1);
  std::set<int64_t> chunks;
  for (int64_t i : labels(e)) chunks.insert(i / kRows);
  EXPECT_GT(chunks.size(), 2u);  // more than a window of two chunks could give
}

}  // namespace
}  // namespace hamgan
