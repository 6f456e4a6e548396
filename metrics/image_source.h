#pragma once
// Where FID images come from: a data set, or anything that makes uint8 images
// on demand (generators plug in from above, e.g. gan/sample/checkpoint_source.h).
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
  // Whether labels() knows the classes (intra-class FID needs them on both sides):
  // data sets with more than one class and class-conditional generators do.
  virtual bool labelled() const { return false; }
  // Class indices of images [offset, offset + count) as int64 (count); undefined when not labelled().
  virtual torch::Tensor labels(int64_t offset, int64_t count) { return {}; }
  // What the images are, known before any is made (0: not known): their channel
  // count, and how many classes labelled() images are drawn from.
  virtual int64_t channels() const { return 0; }
  virtual int64_t num_classes() const { return 0; }
};

// n ≥ dataset size (or n ≤ 0): every image in order; otherwise a seeded random
// subset of n images (so a class-sorted folder is not cut to its first classes).
std::unique_ptr<ImageSource> make_dataset_source(std::shared_ptr<Dataset> dataset, int64_t n = 0, uint64_t seed = 0);

// make(count, offset) returns uint8 (count, C, H, W) — e.g. a generator quantising
// its [-1, 1] output with quantize_images below.
using ImageMaker = std::function<torch::Tensor(int64_t count, int64_t offset)>;
// label(count, offset) returns the int64 (count) classes of the same images; empty: unlabelled.
using LabelMaker = std::function<torch::Tensor(int64_t count, int64_t offset)>;
// `channels` and `num_classes` (0: not known) are what the source reports of its images.
std::unique_ptr<ImageSource> make_callable_source(ImageMaker make, int64_t size, std::string description,
                                                  LabelMaker label = nullptr, int64_t channels = 0,
                                                  int64_t num_classes = 0);

// Images [offset, offset + count) of `base` (which must outlive it): `fid
// --repeats` takes disjoint seed ranges of one generator source this way.
std::unique_ptr<ImageSource> make_range_source(ImageSource& base, int64_t offset, int64_t count);

// Generator output in [-1, 1] → uint8, as StyleGAN2-ADA does (docs/metrics.md,
// "Sources"): x·127.5 + 128, clamp to [0, 255], truncate (i.e. round half up).
torch::Tensor quantize_images(const torch::Tensor& images);

}  // namespace hamgan
