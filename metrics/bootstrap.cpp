// Bootstrap interval of the FID (see bootstrap.h).
#include "metrics/bootstrap.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "core/stop_signal.h"

namespace hamgan {

torch::Tensor bootstrap_indices(int64_t n, int64_t resamples, uint64_t seed) {
  if (n < 2 || resamples < 1) throw ConfigError("bootstrap: needs at least 2 samples and 1 resample");
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return torch::randint(n, {resamples, n}, gen, torch::kInt64);
}

double percentile(std::vector<double> v, double q) {
  TORCH_CHECK(!v.empty() && q >= 0 && q <= 100, "percentile: empty values or q outside [0, 100]");
  std::sort(v.begin(), v.end());
  const double pos = q / 100.0 * double(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos)), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - double(lo)) * (v[hi] - v[lo]);
}

BootstrapInterval bootstrap_fid(const torch::Tensor& features, const FeatureStats& fixed, const torch::Tensor& indices,
                                double level) {
  TORCH_CHECK(features.dim() == 2 && indices.dim() == 2 && indices.size(1) == features.size(0),
              "bootstrap_fid: expects (N, D) features and (B, N) indices");
  if (fixed.mu.size(0) != features.size(1))
    throw DataError("bootstrap: fixed statistics are " + std::to_string(fixed.mu.size(0)) + "-d, features " +
                    std::to_string(features.size(1)) + "-d");
  torch::NoGradGuard no_grad;
  const auto dev = features.device();
  const int64_t n = features.size(0);
  const auto x = features.to(torch::kFloat64);
  const auto shift = x.mean(0);
  const auto c = x - shift;  // shifted rows, as RunningStats keeps the covariance accurate
  // A = Σ_fixed^½ once; then tr((Σ_fixed Σ_b)^½) = Σ √λ(A Σ_b A), as in frechet.cpp.
  auto s_fixed = fixed.sigma.to(dev, torch::kFloat64);
  s_fixed = 0.5 * (s_fixed + s_fixed.t());
  auto [w, v] = torch::linalg_eigh(s_fixed);
  const auto a = torch::matmul(v * w.clamp_min(0).sqrt().unsqueeze(0), v.t());
  const auto mu_fixed = fixed.mu.to(dev, torch::kFloat64);
  const double trace_fixed = s_fixed.trace().item<double>();
  BootstrapInterval r;
  r.level = level;
  for (int64_t b = 0; b < indices.size(0); ++b) {
    throw_if_stop_requested("bootstrap");
    // How often each row is drawn: the resample's sums are weighted sums of the rows.
    const auto counts = torch::bincount(indices[b].to(dev), {}, n).to(torch::kFloat64);  // (N)
    const auto mean_c = torch::matmul(counts, c) / double(n);                            // (D)
    auto sigma = (torch::matmul((c * counts.unsqueeze(1)).t(), c) - double(n) * torch::outer(mean_c, mean_c)) /
                 double(n - 1);
    sigma = 0.5 * (sigma + sigma.t());
    auto m = torch::matmul(torch::matmul(a, sigma), a);
    const auto lambda = torch::linalg_eigvalsh(0.5 * (m + m.t()));
    const auto diff = shift + mean_c - mu_fixed;
    const double fid = diff.dot(diff).item<double>() + sigma.trace().item<double>() + trace_fixed -
                       2.0 * lambda.clamp_min(0).sqrt().sum().item<double>();
    r.values.push_back(fid);
  }
  r.lower = percentile(r.values, 50.0 * (1.0 - level));
  r.upper = percentile(r.values, 50.0 * (1.0 + level));
  double mean = 0, ss = 0;
  for (double f : r.values) mean += f / double(r.values.size());
  for (double f : r.values) ss += (f - mean) * (f - mean);
  r.std = r.values.size() > 1 ? std::sqrt(ss / double(r.values.size() - 1)) : 0.0;
  return r;
}

BootstrapInterval bootstrap_fid(const torch::Tensor& features, const FeatureStats& fixed,
                                const BootstrapOptions& options) {
  if (options.level <= 0 || options.level >= 1) throw ConfigError("bootstrap: level must be in (0, 1)");
  return bootstrap_fid(features, fixed, bootstrap_indices(features.size(0), options.resamples, options.seed),
                       options.level);
}

}  // namespace hamgan
