#pragma once
// Feature statistics for FID: mean and covariance accumulated in float64 while
// streaming, so 50k×2048 features never sit in memory, and stored as .npz with
// pytorch-fid's keys `mu` (D) and `sigma` (D, D), both float64 (docs/metrics.md, "Statistics files").
#include <torch/torch.h>

#include <optional>
#include <string>

#include "metrics/protocol.h"

namespace hamgan {

struct FeatureStats {
  torch::Tensor mu;     // float64 (D)
  torch::Tensor sigma;  // float64 (D, D), unbiased (÷ N−1) like np.cov / pytorch-fid
  int64_t n = 0;        // samples behind them; 0 = unknown (a file without `n`)
  // sFID's statistics under ADM's keys `mu_s`, `sigma_s` (float64 (2023), (2023, 2023));
  // undefined when the file has none.
  torch::Tensor mu_s, sigma_s;
  StatsProtocol protocol;  // unstamped for files from other tools
};

// Streaming sums of (x − K) and (x − K)(x − K)ᵀ in float64, with the shift K =
// the first batch's mean: the shifted-data algorithm keeps the one-pass
// covariance as accurate as numpy's two-pass np.cov for features far from 0.
class RunningStats {
 public:
  void add(const torch::Tensor& features);  // (B, D), any float dtype, any device
  FeatureStats finish() const;              // needs ≥ 2 samples
  int64_t count() const { return n_; }

 private:
  torch::Tensor shift_, sum_, sum_outer_;  // (D), (D), (D, D) float64
  int64_t n_ = 0;
};

// Writes mu, sigma (and `n` as an int64 scalar and the protocol stamp, which numpy and pytorch-fid ignore).
void save_stats(const std::string& path, const FeatureStats& stats, bool compressed = true);
// Reads pytorch-fid / clean-fid / TTUR / BigGAN-PyTorch / StudioGAN files:
// keys mu and sigma, float32 or float64, stored or deflated. DataError otherwise.
FeatureStats load_stats(const std::string& path);
// A reference a run will compare against for hours: finite mu and sigma (and mu_s,
// sigma_s when present), each sigma symmetric positive semi-definite (its smallest
// eigenvalue at least -1e-6 times its largest). ConfigError naming `path` otherwise.
void check_reference_stats(const FeatureStats& stats, const std::string& path);

}  // namespace hamgan
