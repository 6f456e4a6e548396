#pragma once
// SAGAN-style ResNet generator with conditional BN (docs/models.md, "Layers"):
// SN-linear z → 4×4 stem, up-blocks to R (plan in model_plan.h), the context
// block after the block whose output side is config.context_side(), then
// BN → ReLU → SNConv3×3 → tanh.
#include <torch/torch.h>

#include <vector>

#include "gan/model/gblock.h"
#include "gan/model/model_config.h"
#include "modules/conditional_bn.h"
#include "modules/context_block.h"
#include "modules/spectral_norm.h"
#include "modules/spectral_norm_group.h"

namespace hamgan {

class GeneratorImpl : public torch::nn::Module {
 public:
  explicit GeneratorImpl(const ModelConfig& config);
  // z: (N, z_dim) float; labels: (N,) int64 → images (N, C, R, R) in [-1, 1] (tanh).
  torch::Tensor forward(const torch::Tensor& z, const torch::Tensor& labels);
  // Same as forward, also appending the shape after the stem, each block and the context block to `shapes`.
  torch::Tensor forward_traced(const torch::Tensor& z, const torch::Tensor& labels,
                               std::vector<std::vector<int64_t>>* shapes);
  const ModelConfig& config() const { return config_; }
  // The model key resample_conv, which may differ between runs of the same weights (resume, sampling).
  void set_resample_conv(ResampleConv form);
  const ContextBlock& context() const { return context_; }
  void pretty_print(std::ostream& stream) const override;

 private:
  std::shared_ptr<SpectralNormGroup> sn_group_;  // made at the first forward
  ModelConfig config_;
  SNLinear linear_{nullptr};
  std::vector<GBlock> blocks_;
  int64_t context_after_ = 0;  // index into blocks_
  ContextBlock context_;
  ConditionalBatchNorm bn_{nullptr};  // unconditional (num_classes 0)
  SNConv2d conv_out_{nullptr};
};
TORCH_MODULE(Generator);

}  // namespace hamgan
