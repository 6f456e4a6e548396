#pragma once
// Gradient accumulation splits each update's images into k equal micro-batches.
#include <torch/torch.h>

namespace hamgan {

// Rows [m·b/k, (m+1)·b/k) of a batch of b: micro-batch m of k.
inline torch::Tensor micro_batch(const torch::Tensor& t, int64_t m, int64_t k) {
  const int64_t n = t.size(0) / k;
  return k == 1 ? t : t.slice(0, m * n, (m + 1) * n);
}

}  // namespace hamgan
