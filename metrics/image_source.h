#pragma once
// Where FID images come from: a data set, or anything that makes uint8 images
// on demand (a generator checkpoint plugs in through open_checkpoint_source).
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>

#include "data/dataset.h"

namespace hamgan {

class ImageSource {
 public:
  virtual ~ImageSource() = default;
  virtual int64_t size() const = 0;
  // Images [offset, offset + count) as uint8 (count, C, H, W); count ≤ size() − offset.
  virtual torch::Tensor batch(int64_t offset, int64_t count) = 0;
  virtual std::string describe() const = 0;
};

// n ≥ dataset size (or n ≤ 0): every image in order; otherwise a seeded random
// subset of n images (so a class-sorted folder is not cut to its first classes).
std::unique_ptr<ImageSource> make_dataset_source(std::shared_ptr<Dataset> dataset, int64_t n = 0, uint64_t seed = 0);

// make(count, offset) returns uint8 (count, C, H, W) — e.g. a generator quantising
// its [-1, 1] output with quantize_images below.
using ImageMaker = std::function<torch::Tensor(int64_t count, int64_t offset)>;
std::unique_ptr<ImageSource> make_callable_source(ImageMaker make, int64_t size, std::string description);

// Generator output in [-1, 1] → uint8, as StyleGAN2-ADA does (ecosystem.md §1.6,
// §6.1): x·127.5 + 128, clamp to [0, 255], truncate (i.e. round half up).
torch::Tensor quantize_images(const torch::Tensor& images);

// Balanced labels for n generated images over num_classes: offset i gets class
// i mod num_classes, so any prefix is as balanced as it can be.
torch::Tensor balanced_labels(int64_t offset, int64_t count, int64_t num_classes);

// Hook for `hamgan fid CHECKPOINT`: n class-balanced samples from a generator
// checkpoint (a .pt file or a run directory), seeded; defined in gan/checkpoint_source.cpp.
// standing_stats: batches over which G's BN statistics are recomputed first (0: the stored ones).
std::unique_ptr<ImageSource> open_checkpoint_source(const std::string& path, int64_t n, uint64_t seed,
                                                    int64_t standing_stats = 16);

}  // namespace hamgan
