#pragma once
// Shuffled, seeded batches as float tensors in [-1, 1], optional horizontal
// flip, prefetched on worker threads. Endless: each epoch is a new permutation
// drawn from (seed, epoch), so the position (epoch, index) fully determines
// what comes next and a resumed run continues the same data order.
#include <torch/torch.h>

#include <memory>

#include "data/dataset.h"

namespace hamgan {

struct LoaderOptions {
  int64_t batch_size = 64;
  uint64_t seed = 0;
  bool flip = false;    // random horizontal flip (seeded)
  int64_t workers = 2;  // decoding threads
  int64_t prefetch = 4; // batches ready ahead
  bool pin_memory = false;  // page-locked image batches for non_blocking GPU copies (ignored without CUDA)
  // Data-parallel sharding: batch_size is the global batch, of which this
  // loader returns contiguous slice `shard` of `shards` (batch_size / shards
  // examples). Every rank walks the same permutation, so the shards are
  // disjoint, together form exactly the single-process batch, and one position
  // resumes them all.
  int64_t shard = 0, shards = 1;
};

struct Batch {
  torch::Tensor images;  // float32 (B, C, H, W) in [-1, 1]
  torch::Tensor labels;  // int64 (B)
};

struct LoaderPosition {
  int64_t epoch = 0;
  int64_t index = 0;  // next example within the epoch's permutation
};

class DataLoader {
 public:
  DataLoader(std::shared_ptr<Dataset> dataset, LoaderOptions options, LoaderPosition start = {});
  ~DataLoader();
  Batch next();
  LoaderPosition position() const;  // position after the last batch returned by next()
  const Dataset& dataset() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace hamgan
