// `prepare --shuffle`: a class-sorted compressed file rewritten in a seeded
// random order, each chunk decompressed once, which training's window check
// then accepts where it refused the original.
#include <set>

#include "core/errors.h"
#include "data/epoch_order.h"
#include "data/hdf5_common.h"
#include "data/hdf5_writer.h"
#include "data/order_stats.h"
#include "data/prepare.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

constexpr int64_t kN = 2600, kPerClass = 100;  // 26 classes in order, 6 chunks of 500

std::shared_ptr<Dataset> open_file(const std::string& path) {
  DatasetSpec s;
  s.path = path;
  return open_dataset(s);
}

TEST(PrepareShuffle, WritesTheSeededPermutationDecompressingEachChunkOnce) {
  const std::string dir = test::fresh_dir("prepare_shuffle"), sorted = dir + "/sorted.hdf5";
  {
    Hdf5Writer w(sorted, 3, 4, 4, kN, "lzf");
    for (int64_t i = 0; i < kN; ++i) {
      auto img = test::pattern_image(i);
      const int64_t label = i / kPerClass;
      w.append(img.data_ptr<uint8_t>(), &label, 1);
    }
    w.finish(kN / kPerClass);
  }
  PrepareConfig cfg;
  cfg.source.path = sorted;
  cfg.output = dir + "/shuffled.hdf5";
  cfg.compression = "lzf";
  cfg.shuffle = true;
  cfg.shuffle_seed = 5;
  cfg.progress = false;
  int64_t before = hdf5::chunk_decompressions();
  open_file(sorted);  // an open reads the (compressed) labels
  const int64_t per_open = hdf5::chunk_decompressions() - before;
  before = hdf5::chunk_decompressions();
  EXPECT_EQ(prepare_dataset(cfg).written, kN);
  // Opened to look, then read whole into memory: each of the 6 image chunks decompressed once.
  EXPECT_EQ(hdf5::chunk_decompressions() - before, 2 * per_open + 6);

  auto out = open_file(cfg.output);
  const auto order = permutation(5, 0, kN);
  std::set<int64_t> seen;
  for (int64_t j = 0; j < kN; ++j) {
    const Example ex = out->get(j);
    ASSERT_TRUE(torch::equal(ex.image, test::pattern_image(order[j]))) << j;
    ASSERT_EQ(ex.label, order[j] / kPerClass) << j;
    seen.insert(order[j]);
  }
  EXPECT_EQ(seen.size(), size_t(kN));

  LoaderOptions o;
  o.batch_size = 100;
  o.shuffle_window = 2;
  EXPECT_THROW(check_window_randomness(*open_file(sorted), o), ConfigError);
  EXPECT_NO_THROW(check_window_randomness(*out, o));
}

}  // namespace
}  // namespace hamgan
