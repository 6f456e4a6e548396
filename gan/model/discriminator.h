#pragma once
// Projection discriminator (docs/models.md, "Layers"): optimized block, down-blocks
// to 4×4, one block without downsampling (plan in model_plan.h), the context
// block after the block whose output side is config.context_side(), then
// ReLU → sum over H, W → h; logit = SNLinear(h) + ⟨SNEmbedding(y), h⟩.
#include <torch/torch.h>

#include <vector>

#include "gan/model/dblock.h"
#include "gan/model/model_config.h"
#include "modules/context_block.h"
#include "modules/spectral_norm.h"
#include "modules/spectral_norm_group.h"

namespace hamgan {

class DiscriminatorImpl : public torch::nn::Module {
 public:
  explicit DiscriminatorImpl(const ModelConfig& config);
  // images: (N, C, R, R) in [-1, 1]; labels: (N,) int64 → logits (N).
  torch::Tensor forward(const torch::Tensor& images, const torch::Tensor& labels);
  // The pooled features h (N, 16·d_ch or the plan's last width) before the heads;
  // appends the shape after each block and the context block to `shapes` if given.
  torch::Tensor features(const torch::Tensor& images, std::vector<std::vector<int64_t>>* shapes = nullptr);
  const ModelConfig& config() const { return config_; }
  // The model key resample_conv, which may differ between runs of the same weights (resume, sampling).
  void set_resample_conv(ResampleConv form);
  const ContextBlock& context() const { return context_; }
  SNLinear& linear() { return linear_; }
  SNEmbedding& embed() { return embed_; }
  void pretty_print(std::ostream& stream) const override;

 private:
  std::shared_ptr<SpectralNormGroup> sn_group_;  // made at the first forward
  ModelConfig config_;
  std::vector<DBlock> blocks_;
  int64_t context_after_ = 0;
  ContextBlock context_;
  SNLinear linear_{nullptr};
  SNEmbedding embed_{nullptr};
};
TORCH_MODULE(Discriminator);

}  // namespace hamgan
