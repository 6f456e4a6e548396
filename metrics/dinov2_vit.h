#pragma once
// DINOv2's ViT (Oquab et al. 2023) run by LibTorch from a safetensors file that
// scripts/convert_dinov2.py writes (timm's tensor names, the position embedding
// already resampled for 224×224 input, the architecture in the metadata): patch
// projection, class token, position embedding, pre-norm blocks (multi-head
// attention and a GELU MLP, each scaled by LayerScale), final LayerNorm, the class
// token out. FD_DINOv2 without TorchScript (metrics/dinov2_features.h).
#include <torch/torch.h>

#include <string>
#include <vector>

namespace hamgan {

// DINOv2's widest model (ViT-g) gives 1536-d features; the statistics hold a D×D float64 covariance, so a
// network with more outputs is no embedding network (say, one returning 200,000 logits) and stops here.
inline constexpr int64_t kDinov2MaxFeatureDim = 16384;

class Dinov2Vit {
 public:
  // Reads and checks `path` before building anything: the metadata (format hamgan-dinov2, version
  // 1, 224 input, patch, depth, heads, eps), every tensor's name and shape (none missing, none
  // extra) and finite values. Any fault: CheckpointError in one line naming the file (and tensor).
  Dinov2Vit(const std::string& path, torch::Device device);
  // float32 (N, 3, 224, 224), normalised with ImageNet's mean and std -> (N, D) class-token features.
  torch::Tensor forward(const torch::Tensor& images) const;
  int64_t dim() const { return dim_; }

 private:
  struct Block {
    torch::Tensor norm1_w, norm1_b, qkv_w, qkv_b, proj_w, proj_b, ls1, norm2_w, norm2_b, fc1_w, fc1_b, fc2_w,
        fc2_b, ls2;
  };
  torch::Tensor patch_w_, patch_b_, cls_, pos_, norm_w_, norm_b_;
  std::vector<Block> blocks_;
  int64_t dim_ = 0, heads_ = 0, patch_ = 0;
  double eps_ = 1e-6;
};

}  // namespace hamgan
