#pragma once
// The generator inputs every sampling path draws the same way: z from a private
// CPU generator seeded per call, and class-balanced labels (image i gets class
// i mod K), so a seed names the same images wherever they are made.
#include <torch/torch.h>

#include "core/rng.h"  // make_cpu_generator and ScopedRngRestore, which callers pair with these

namespace hamgan {

struct LabelDraw;  // gan/sample/label_draw.h

// z ~ N(0, I) of shape (n, z_dim); with truncation > 0 every |z_i| > truncation
// is redrawn (BigGAN's truncation trick). Uses only `gen`.
torch::Tensor sample_z(int64_t n, int64_t z_dim, double truncation, at::Generator& gen);

// Labels of images [offset, offset + count) over num_classes: image i gets
// class i mod num_classes, so any prefix is as balanced as it can be.
torch::Tensor balanced_labels(int64_t offset, int64_t count, int64_t num_classes);

struct NoiseBatch {
  torch::Tensor z;       // float (count, z_dim), CPU
  torch::Tensor labels;  // int64 (count), CPU
};

// Seeded z and balanced labels for n images, drawn up front so a slice
// [offset, offset + count) is the same whatever the batching. Constructing one
// also calls torch::manual_seed(seed): blocks that draw random numbers in eval
// mode (the NMF's random bases) follow the seed too. Callers whose global
// random stream must survive hold a ScopedRngRestore around it.
class FixedNoise {
 public:
  // chunk > 0 draws z as consecutive blocks of `chunk` rows instead of in one
  // call; CPU randn fills in vectors of 16, so the split changes the values.
  // `labels` draws the classes (gan/sample/label_draw.h; default: balanced).
  FixedNoise(int64_t n, int64_t z_dim, int64_t num_classes, uint64_t seed, double truncation = 0.0,
             int64_t chunk = 0, const LabelDraw* labels = nullptr);

  int64_t size() const { return z_.size(0); }
  const torch::Tensor& z() const { return z_; }
  const torch::Tensor& labels() const { return labels_; }
  NoiseBatch slice(int64_t offset, int64_t count) const;

 private:
  torch::Tensor z_, labels_;
};

}  // namespace hamgan
