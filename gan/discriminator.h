#pragma once
// Projection discriminator (architecture.md §1.4).
#include <torch/torch.h>

#include "gan/model_config.h"

namespace hamgan {

class DiscriminatorImpl : public torch::nn::Module {
 public:
  explicit DiscriminatorImpl(const ModelConfig& config);
  // images: (N, C, R, R) in [-1, 1]; labels: (N,) int64 → logits (N).
  torch::Tensor forward(const torch::Tensor& images, const torch::Tensor& labels);
  const ModelConfig& config() const { return config_; }

 private:
  ModelConfig config_;
};
TORCH_MODULE(Discriminator);

}  // namespace hamgan
