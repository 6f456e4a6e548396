#pragma once
// Inception Score and Kernel Inception Distance from the same features the FID
// uses, in float64, following torch-fidelity's definitions (docs/metrics.md, "Sources").
#include <torch/torch.h>

namespace hamgan {

struct MeanStd {
  double mean = 0, std = 0;  // std: population (numpy's np.std), as torch-fidelity reports it
};

// IS = exp(E_x KL(p(y|x) ‖ p(y))) over `splits` contiguous chunks [i·N/s, (i+1)·N/s)
// (torch-fidelity with shuffle off; the sample order is already random).
// logits: (N, K) — softmax is taken here.
MeanStd inception_score(const torch::Tensor& logits, int64_t splits = 10);

struct KidOptions {
  int64_t subsets = 100;       // torch-fidelity default
  int64_t subset_size = 1000;  // clipped to the smaller set
  int64_t degree = 3;          // polynomial kernel k(x,y) = (xᵀy/d + coef0)^degree
  double coef0 = 1.0;
  uint64_t seed = 2020;        // subset draws (torch-fidelity's rng_seed)
};

// Unbiased MMD² with the polynomial kernel, averaged over random subsets
// drawn without replacement. x: (N, D), y: (M, D).
MeanStd kernel_inception_distance(const torch::Tensor& x, const torch::Tensor& y, const KidOptions& options = {});

// One subset: the unbiased MMD² estimate between x and y of equal size.
double polynomial_mmd2(const torch::Tensor& x, const torch::Tensor& y, int64_t degree = 3, double coef0 = 1.0);

}  // namespace hamgan
