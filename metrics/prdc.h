#pragma once
// Improved precision and recall (Kynkäänniemi et al., NeurIPS 2019) and density
// and coverage (Naeem et al., ICML 2020) from k-nearest-neighbour balls around
// feature vectors, as the `prdc` package (NAVER, the second paper's code)
// computes them:
//   r(x)      = distance from x to its k-th nearest neighbour in its own set, self excluded
//   precision = fraction of fakes inside some real ball:      ∃i d(real_i, fake_j) < r(real_i)
//   recall    = fraction of reals inside some fake ball:      ∃j d(real_i, fake_j) < r(fake_j)
//   density   = (1/k) · mean over fakes of how many real balls contain them
//   coverage  = fraction of reals whose ball holds a fake:   min_j d(real_i, fake_j) < r(real_i)
// Exact distances in float64, in blocks of rows, so 50k × 50k features never
// make an N × M matrix at once; on whatever device the real features are.
#include <torch/torch.h>

namespace hamgan {

struct PrdcOptions {
  int64_t k = 3;                     // neighbours (both papers' default)
  int64_t block_elements = 1 << 25;  // float64 distances per block (256 MB); rows = this / columns
};

struct PrdcResult {
  double precision = 0, recall = 0, density = 0, coverage = 0;
  int64_t k = 0, n_real = 0, n_fake = 0;
};

// real: (N, D), fake: (M, D), any float dtype; both sets need more than k rows.
// Computed on real's device (fake is moved there).
PrdcResult compute_prdc(const torch::Tensor& real, const torch::Tensor& fake, const PrdcOptions& options = {});

// Squared distance from each row of x (N, D) to its k-th nearest other row (the
// (k+1)-th smallest including itself, as prdc takes it), float64 (N) on x's device.
torch::Tensor knn_radii_squared(const torch::Tensor& x, int64_t k, int64_t block_elements = 1 << 25);

}  // namespace hamgan
