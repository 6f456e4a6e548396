#pragma once
// FID with uncertainty: a percentile bootstrap over one side's features (the
// generated images), the other side's statistics held fixed. It measures how
// much the FID moves with the draw of n generated images, not the bias FID has
// at finite n: resamples repeat images, so the bootstrap FIDs sit slightly above
// the point estimate, and the interval is a spread, not a correction.
#include <torch/torch.h>

#include <vector>

#include "metrics/frechet.h"
#include "metrics/stats.h"

namespace hamgan {

struct BootstrapOptions {
  int64_t resamples = 200;
  uint64_t seed = 0;    // the resample draws; the same seed gives the same interval
  double level = 0.95;  // central percentile interval
};

struct BootstrapInterval {
  double lower = 0, upper = 0;  // numpy's default (linear) percentiles (1 ± level)/2 of `values`
  double std = 0;               // standard deviation of `values` (÷ B−1)
  double level = 0.95;
  std::vector<double> values;   // one FID per resample, in draw order
};

// (resamples, n) int64 CPU: row b holds the n row indices (drawn with
// replacement) of resample b, from a CPU generator seeded with `seed`.
torch::Tensor bootstrap_indices(int64_t n, int64_t resamples, uint64_t seed);

// FID between the rows `indices[b]` of `features` (N, D) and `fixed`, for every
// row b of `indices` (B, N); computed in float64 on the features' device. The
// fixed side's Σ^½ is taken once, so a resample costs N·D² for its covariance
// and one symmetric eigendecomposition.
BootstrapInterval bootstrap_fid(const torch::Tensor& features, const FeatureStats& fixed, const torch::Tensor& indices,
                                double level = 0.95);
// The same over bootstrap_indices(N, resamples, seed).
BootstrapInterval bootstrap_fid(const torch::Tensor& features, const FeatureStats& fixed,
                                const BootstrapOptions& options);

// numpy.percentile(values, q) with its default linear interpolation; q in [0, 100].
double percentile(std::vector<double> values, double q);

}  // namespace hamgan
