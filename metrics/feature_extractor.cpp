#include "metrics/feature_extractor.h"

#include "metrics/exact_arithmetic.h"

namespace hamgan {

FeatureBatch FeatureExtractor::extract(const torch::Tensor& images) {
  ExactArithmeticScope exact;
  return compute(images);
}

}  // namespace hamgan
