// dataset_fraction on a chunked file keeps the loader's chunk windows: the
// subset's chunks are runs of kept images read by decoding the file's chunks
// they lie in, so an epoch decodes each file chunk at most twice instead of a
// chunk per image. Compare tests/data/chunk_order_test.cpp on a whole file.
#include <algorithm>
#include <set>

#include "data/hdf5_common.h"
#include "data/hdf5_writer.h"
#include "data/loader.h"
#include "data/subset_dataset.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

constexpr int64_t kN = 2600, kRows = 500;  // 6 chunks, the last holding 100 images

// Image i is pattern_image(i) with i in its first two bytes, label i % 4:
// pixels say which image a batch holds.
std::shared_ptr<Dataset> subset_of_lzf_file(double fraction) {
  const std::string path = test::fresh_dir("subset_chunks") + "/lzf.hdf5";
  {
    Hdf5Writer w(path, 3, 4, 4, kN, "lzf");
    for (int64_t i = 0; i < kN; ++i) {
      auto img = test::pattern_image(i);
      img[0][0][0] = i % 256;
      img[0][0][1] = i / 256;
      const int64_t label = i % 4;
      w.append(img.data_ptr<uint8_t>(), &label, 1);
    }
    w.finish(4);
  }
  DatasetSpec s;
  s.path = path;
  return dataset_fraction(open_dataset(s), fraction);
}

std::string bytes_of(const torch::Tensor& image) {
  auto c = image.contiguous();
  return std::string(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()), c.numel());
}

// Before: the subset had no chunks (chunk_rows 0), so the loader shuffled it
// image by image, each image decoding its whole chunk.
TEST(SubsetChunks, TheLoaderReadsASubsetByChunkWindowsDecodingEachFileChunkAtMostTwice) {
  const auto sub = subset_of_lzf_file(0.5);
  ASSERT_EQ(sub->size(), 1300);
  ASSERT_EQ(sub->chunk_rows(), kRows);  // 3 subset chunks of 500, 500 and 300 kept images
  // A subset chunk holds exactly the kept images it stands for.
  std::vector<int64_t> first(kRows), labels(kRows);
  for (int64_t i = 0; i < kRows; ++i) first[i] = 500 + i;
  auto expected = torch::empty({kRows, 3, 4, 4}, torch::kUInt8), got = torch::empty_like(expected);
  sub->get_batch(first, expected.data_ptr<uint8_t>(), labels.data());
  sub->read_chunk(1, got.data_ptr<uint8_t>());
  EXPECT_TRUE(torch::equal(got, expected));

  std::set<std::string> kept;
  for (int64_t i = 0; i < sub->size(); ++i) kept.insert(bytes_of(sub->get(i).image));
  LoaderOptions o;
  o.batch_size = 100;
  o.seed = 3;
  o.workers = 0;  // nothing read ahead: the count holds this epoch only
  o.shuffle_window = 2;
  const int64_t before = hdf5::chunk_decompressions();
  std::set<std::string> seen;
  {
    DataLoader l(sub, o);
    ASSERT_EQ(l.batches_per_epoch(), 13);
    for (int64_t b = 0; b < 13; ++b) {
      const Batch batch = l.next();
      for (int64_t k = 0; k < 100; ++k) {
        const std::string image = bytes_of(batch.images[k]);
        EXPECT_TRUE(kept.count(image)) << "batch " << b << " holds an image outside the subset";
        EXPECT_TRUE(seen.insert(image).second) << "batch " << b << " repeats an image";
      }
    }
    EXPECT_GT(l.peak_chunks(), 0);  // chunk windows, not a full shuffle
    EXPECT_LE(l.peak_chunks(), 3);
  }
  const int64_t decoded = hdf5::chunk_decompressions() - before;
  EXPECT_GE(decoded, 6);  // every file chunk holds kept images
  EXPECT_LE(decoded, 6 + 3);  // at most the 6 file chunks plus one shared at each subset chunk's edge
}

TEST(SubsetChunks, AWholeDatasetFractionIsTheFileItself) {
  const auto whole = subset_of_lzf_file(1.0);
  EXPECT_EQ(whole->size(), kN);
  EXPECT_EQ(whole->chunk_rows(), kRows);
}

}  // namespace
}  // namespace hamgan
