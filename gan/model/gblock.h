#pragma once
// Generator residual up-block (TF-GAN generator.py::block; docs/models.md, "Layers"):
//   main:     CBN(in) → ReLU → up×2 → SNConv3×3(in→out) → CBN(out) → ReLU → SNConv3×3(out→out)
//   shortcut: up×2 → SNConv1×1(in→out), present even when in == out
#include <torch/torch.h>

#include "modules/conditional_bn.h"
#include "modules/resample_conv.h"
#include "modules/spectral_norm.h"

namespace hamgan {

class GBlockImpl : public torch::nn::Module {
 public:
  GBlockImpl(int64_t in_channels, int64_t out_channels, int64_t num_classes);
  // x: (N, in, H, W), labels: (N,) → (N, out, 2H, 2W)
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& labels);
  // up×2 → conv1 as two passes or as one transposed 4×4 convolution (modules/resample_conv.h).
  ResampleConv resample = ResampleConv::kSeparate;

 private:
  ConditionalBatchNorm bn1{nullptr}, bn2{nullptr};
  SNConv2d conv1{nullptr}, conv2{nullptr}, shortcut{nullptr};
};
TORCH_MODULE(GBlock);

// Nearest-neighbour ×2: each pixel becomes a 2×2 block (TF-GAN ops.py::usample).
torch::Tensor upsample2x(const torch::Tensor& x);

}  // namespace hamgan
