#pragma once
// SAGAN-style ResNet generator with conditional BN (architecture.md §1.3).
#include <torch/torch.h>

#include "gan/model_config.h"

namespace hamgan {

class GeneratorImpl : public torch::nn::Module {
 public:
  explicit GeneratorImpl(const ModelConfig& config);
  // z: (N, z_dim) float; labels: (N,) int64 → images (N, C, R, R) in [-1, 1] (tanh).
  torch::Tensor forward(const torch::Tensor& z, const torch::Tensor& labels);
  const ModelConfig& config() const { return config_; }

 private:
  ModelConfig config_;
};
TORCH_MODULE(Generator);

}  // namespace hamgan
