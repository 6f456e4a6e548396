#pragma once
// The interface every feature extractor implements (metrics/features.h makes
// them): uint8 images in, float32 features out, computed in exact fp32.
#include <torch/torch.h>

#include <string>

namespace hamgan {

struct FeatureBatch {
  torch::Tensor features;  // float32 (B, D) on the extractor's device
  torch::Tensor logits;    // float32 (B, K): Inception fc without bias (OpenAI/torch-fidelity
                           // "logits_unbiased", StyleGAN2-ADA no_output_bias); classifier logits
  torch::Tensor spatial;   // float32 (B, 2023): sFID's features, only from an Inception made with sfid on
};

class FeatureExtractor {
 public:
  virtual ~FeatureExtractor() = default;
  // uint8 (B, C, H, W), any device: compute() in exact fp32 whatever the
  // process's math mode (metrics/exact_arithmetic.h), so no metric depends on
  // the precision a training run chose.
  FeatureBatch extract(const torch::Tensor& images);
  // What an extractor implements; called only through extract().
  virtual FeatureBatch compute(const torch::Tensor& images) = 0;
  virtual int64_t dim() const = 0;
  virtual std::string describe() const = 0;  // weights and preprocessing, printed with every score
  virtual torch::Device device() const = 0;
};

}  // namespace hamgan
