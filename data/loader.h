#pragma once
// Shuffled, seeded batches of uint8 images with their labels and flip bits,
// prefetched on worker threads; model_images() turns them into float input on
// the device. Endless: each epoch's order is drawn from (seed, epoch)
// (data/epoch_order.h), so the position (epoch, index) fully determines what
// comes next and a resumed run continues the same data order.
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
  // loader returns batch_size / shards examples, disjoint from every other
  // shard's; one position resumes them all. Under a full shuffle the shards
  // are slices of the single-process batch; under chunk windows each rank
  // reads its own chunks.
  int64_t shard = 0, shards = 1;
  // Chunked files (compressed HDF5): chunks shuffled together, each decoded
  // once per epoch (data/epoch_order.h); 0 shuffles every example freely.
  // Datasets without chunks (in memory, IDX, folders, ZIP) always shuffle fully.
  static constexpr int64_t kDefaultShuffleWindow = 4;
  int64_t shuffle_window = kDefaultShuffleWindow;
};

struct Batch {
  torch::Tensor images;  // uint8 (B, C, H, W) as stored, not yet flipped
  torch::Tensor labels;  // int64 (B)
  torch::Tensor flips;   // bool (B): mirror example i horizontally
};

// The model's input: float32 (B, C, H, W) in [-1, 1] on `device`, computed
// there as torchvision's (x/255 − 0.5)/0.5, mirrored where `flips` says. The
// copy moves bytes (a quarter of float's), non-blocking from pinned memory.
torch::Tensor model_images(const Batch& batch, torch::Device device);

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
  int64_t batches_per_epoch() const;
  int64_t peak_chunks() const;  // most decoded chunks held at once (0: no chunk windows)

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace hamgan
