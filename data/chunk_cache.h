#pragma once
// Decoded chunks shared by a loader's workers. The first worker that needs a
// chunk decodes it (several decode different chunks at once; one that needs a
// chunk another is decoding waits for it), and a chunk is dropped as soon as
// the last of its examples the loader will take in that epoch is copied out:
// each chunk is decoded once per epoch, and memory holds only the chunks of
// the windows being read.
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "data/dataset.h"

namespace hamgan {

class ChunkCache {
 public:
  explicit ChunkCache(const Dataset& dataset);
  // Copies examples `indices` of `epoch` into `images` ((B, C, H, W) bytes).
  // `uses[k]`: how many examples of chunk k the loader takes in that epoch
  // from its first batch there on (the same vector on every call of an epoch).
  void gather(int64_t epoch, const std::vector<int64_t>& indices, const std::vector<int64_t>& uses, uint8_t* images);
  int64_t peak_resident() const;  // most chunks held at once so far

 private:
  struct Entry {
    bool claimed = false;  // a worker is decoding it (or has)
    bool ready = false;
    std::exception_ptr error;
    std::vector<uint8_t> pixels;
    int64_t remaining = 0;
  };
  const Dataset& dataset_;
  int64_t rows_, per_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<int64_t, int64_t>, std::shared_ptr<Entry>> entries_;  // by (epoch, chunk)
  int64_t peak_ = 0;
};

}  // namespace hamgan
