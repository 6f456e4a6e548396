#pragma once
// Discriminator residual blocks (TF-GAN discriminator.py; docs/models.md, "Layers").
#include <torch/torch.h>

#include "modules/resample_conv.h"
#include "modules/spectral_norm.h"

namespace hamgan {

// block: main = ReLU → SNConv3×3(in→out) → ReLU → SNConv3×3(out→out) → [avgpool 2×2];
// shortcut = SNConv1×1 → [avgpool] if downsampling or in ≠ out, else identity.
// optimized (the first block, on raw images): main = SNConv3×3 → ReLU → SNConv3×3 → avgpool;
// shortcut = avgpool → SNConv1×1. No activation before the first conv.
struct DBlockOptions {
  DBlockOptions(int64_t in, int64_t out) : in_channels_(in), out_channels_(out) {}
  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(bool, downsample) = true;
  TORCH_ARG(bool, optimized) = false;  // the first block of D
};

class DBlockImpl : public torch::nn::Module {
 public:
  explicit DBlockImpl(const DBlockOptions& options);
  // x: (N, in, H, W) → (N, out, H/2, W/2) or (N, out, H, W) without downsampling
  torch::Tensor forward(const torch::Tensor& x);
  DBlockOptions options;
  // conv2 → avgpool as two passes or as one strided 4×4 convolution (modules/resample_conv.h).
  ResampleConv resample = ResampleConv::kSeparate;

 private:
  SNConv2d conv1{nullptr}, conv2{nullptr}, shortcut{nullptr};  // shortcut may stay null (identity)
};
TORCH_MODULE(DBlock);

// 2×2 average pool, stride 2, VALID (TF-GAN dsample).
torch::Tensor downsample2x(const torch::Tensor& x);

}  // namespace hamgan
