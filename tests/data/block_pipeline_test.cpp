// prepare's decode-and-write pipeline: blocks in source order whatever the
// thread count and timing, failed images recorded in place, and every way out
// (stop, an error in a worker, an error while writing) ends the workers.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/errors.h"
#include "data/block_pipeline.h"

namespace hamgan {
namespace {

// Image i: 3 bytes derived from i; every 7th fails; some take longer, so the
// workers finish out of order.
int64_t fake_decode(int64_t i, uint8_t* pixels) {
  if (i % 5 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  if (i % 7 == 3) throw DataError("image " + std::to_string(i) + " is broken");
  for (int b = 0; b < 3; ++b) pixels[b] = uint8_t(i * 3 + b);
  return i % 4;
}

TEST(BlockPipeline, BlocksComeInSourceOrderForAnyThreadCount) {
  const std::atomic<bool> stop{false};
  for (int64_t workers : {1, 2, 3, 5})
    for (int64_t block : {1, 4, 500}) {
      const int64_t images = 61;
      int64_t next = 0;
      auto consume = [&](DecodedBlock& blk) {
        ASSERT_EQ(blk.start, next);
        ASSERT_EQ(blk.len, std::min(block, images - next));
        for (int64_t j = 0; j < blk.len; ++j) {
          const int64_t i = blk.start + j;
          if (i % 7 == 3) {
            EXPECT_FALSE(blk.ok[j]);
            EXPECT_EQ(blk.errors[j], "image " + std::to_string(i) + " is broken");
            continue;
          }
          ASSERT_TRUE(blk.ok[j]) << i;
          EXPECT_EQ(blk.labels[j], i % 4);
          for (int b = 0; b < 3; ++b) EXPECT_EQ(blk.pixels[j * 3 + b], uint8_t(i * 3 + b));
        }
        next += blk.len;
      };
      EXPECT_TRUE(run_block_pipeline({images, 3, block, workers}, fake_decode, consume, stop));
      EXPECT_EQ(next, images) << workers << " workers, block " << block;
    }
  int64_t calls = 0;
  EXPECT_TRUE(run_block_pipeline({0, 3, 4, 2}, fake_decode, [&](DecodedBlock&) { ++calls; }, stop));
  EXPECT_EQ(calls, 0);
}

TEST(BlockPipeline, StopEndsItBeforeTheNextBlock) {
  std::atomic<bool> stop{false};
  int64_t blocks = 0;
  auto consume = [&](DecodedBlock&) {
    if (++blocks == 2) stop = true;
  };
  EXPECT_FALSE(run_block_pipeline({100, 3, 10, 2}, fake_decode, consume, stop));
  EXPECT_EQ(blocks, 2);
}

TEST(BlockPipeline, OtherErrorsReachTheCaller) {
  const std::atomic<bool> stop{false};
  auto failing = [](int64_t i, uint8_t* pixels) -> int64_t {
    if (i == 17) throw std::runtime_error("worker failed");
    return fake_decode(i, pixels);
  };
  EXPECT_THROW(run_block_pipeline({40, 3, 8, 3}, failing, [](DecodedBlock&) {}, stop), std::runtime_error);
  // An error while writing stops the workers too.
  auto write_fails = [](DecodedBlock& blk) {
    if (blk.start > 0) throw DataError("disk full");
  };
  EXPECT_THROW(run_block_pipeline({40, 3, 8, 2}, fake_decode, write_fails, stop), DataError);
}

}  // namespace
}  // namespace hamgan
