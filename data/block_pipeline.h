#pragma once
// The decode-and-write pipeline of `hamgan prepare`: worker threads take the
// next image as they finish the last (no fixed share, so one slow image does
// not hold a thread's whole share back), into blocks of consecutive images;
// the calling thread hands each block on, in source order, as soon as it is
// complete, while the workers decode the next one. The output therefore
// depends only on the source, never on thread count or timing.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hamgan {

struct DecodedBlock {
  int64_t start = 0, len = 0;    // images [start, start + len)
  std::vector<uint8_t> pixels;   // len × bytes_per_image
  std::vector<int64_t> labels;
  std::vector<char> ok;          // 0: decode threw DataError, message in errors
  std::vector<std::string> errors;
};

struct BlockPipelineSpec {
  int64_t images = 0;
  int64_t bytes_per_image = 0;
  int64_t block = 500;   // images per block
  int64_t workers = 2;   // decoding threads
  int64_t ring = 2;      // blocks in memory: one being handed on, the others being decoded
};

// decode(i, pixels) writes image i's bytes and returns its label, or throws
// DataError (recorded in the block, the image skipped). consume(block) runs on
// the calling thread, block after block in order; it may reorder the block's
// buffers. Returns false, with no further block consumed, once `stop` is set
// (checked between images and at least every 50 ms). Any other exception, in
// a worker or in consume, stops the workers and is rethrown here.
bool run_block_pipeline(const BlockPipelineSpec& spec,
                        const std::function<int64_t(int64_t index, uint8_t* pixels)>& decode,
                        const std::function<void(DecodedBlock& block)>& consume, const std::atomic<bool>& stop);

}  // namespace hamgan
