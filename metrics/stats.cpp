// Streaming feature statistics and their .npz files.
#include "metrics/stats.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "core/errors.h"
#include "metrics/npz.h"

namespace hamgan {

void RunningStats::add(const torch::Tensor& features) {
  TORCH_CHECK(features.dim() == 2, "RunningStats::add expects (B, D) features");
  if (features.size(0) == 0) return;
  auto x = features.to(torch::kFloat64);  // stays on the features' device
  if (!shift_.defined()) {
    shift_ = x.mean(0);
    sum_ = torch::zeros_like(shift_);
    sum_outer_ = torch::zeros({x.size(1), x.size(1)}, x.options());
  }
  TORCH_CHECK(x.size(1) == shift_.size(0), "RunningStats::add: feature width changed");
  auto c = x - shift_;  // (B, D)
  sum_ += c.sum(0);
  sum_outer_.addmm_(c.t(), c);  // += cᵀc, (D, D)
  n_ += x.size(0);
}

FeatureStats RunningStats::finish() const {
  if (n_ < 2) throw DataError("fid: statistics need at least 2 samples, got " + std::to_string(n_));
  auto mean_c = sum_ / double(n_);  // mean of (x − K)
  FeatureStats s;
  s.mu = (shift_ + mean_c).to(torch::kCPU);
  // Σ = (Σ cᵀc − N·m mᵀ)/(N−1) with m the shifted mean.
  auto sigma = (sum_outer_ - double(n_) * torch::outer(mean_c, mean_c)) / double(n_ - 1);
  s.sigma = (0.5 * (sigma + sigma.t())).to(torch::kCPU);
  s.n = n_;
  return s;
}

void save_stats(const std::string& path, const FeatureStats& stats, bool compressed) {
  NpzArrays arrays{{"mu", stats.mu.to(torch::kCPU, torch::kFloat64).contiguous()},
                   {"sigma", stats.sigma.to(torch::kCPU, torch::kFloat64).contiguous()}};
  if (stats.mu_s.defined()) {  // sFID, under ADM's keys
    arrays["mu_s"] = stats.mu_s.to(torch::kCPU, torch::kFloat64).contiguous();
    arrays["sigma_s"] = stats.sigma_s.to(torch::kCPU, torch::kFloat64).contiguous();
  }
  if (stats.n > 0) arrays["n"] = torch::tensor(stats.n, torch::kInt64);
  if (stats.protocol.stamped()) {
    const std::string text = protocol_json(stats.protocol);
    arrays["protocol"] = torch::from_blob(const_cast<char*>(text.data()), {static_cast<int64_t>(text.size())},
                                          torch::kUInt8).clone();
  }
  write_npz(path, arrays, compressed);
}

namespace {

// float32 or float64 (D) and (D, D) → float64; `suffix` names the keys in errors.
std::pair<torch::Tensor, torch::Tensor> mean_and_covariance(const std::string& path, const torch::Tensor& mu_in,
                                                            const torch::Tensor& sigma_in, const std::string& suffix) {
  auto mu = mu_in.to(torch::kFloat64).reshape({-1});
  auto sigma = sigma_in.to(torch::kFloat64);
  if (sigma.dim() != 2 || sigma.size(0) != mu.size(0) || sigma.size(1) != mu.size(0))
    throw DataError(path + ": sigma" + suffix + " shape " + c10::str(sigma.sizes()) + " does not match mu" + suffix +
                    " length " + std::to_string(mu.size(0)));
  return {mu, sigma};
}

}  // namespace

FeatureStats load_stats(const std::string& path) {
  auto arrays = read_npz(path, {"mu", "sigma", "mu_s", "sigma_s", "n", "protocol"});
  if (!arrays.count("mu") || !arrays.count("sigma"))
    throw DataError(path + ": no `mu` and `sigma` arrays (not an FID statistics file; make one with 'hamgan fid-stats')");
  FeatureStats s;
  std::tie(s.mu, s.sigma) = mean_and_covariance(path, arrays["mu"], arrays["sigma"], "");
  if (arrays.count("mu_s") != arrays.count("sigma_s"))
    throw DataError(path + ": has only one of `mu_s` and `sigma_s` (sFID statistics need both)");
  if (arrays.count("mu_s"))
    std::tie(s.mu_s, s.sigma_s) = mean_and_covariance(path, arrays["mu_s"], arrays["sigma_s"], "_s");
  if (arrays.count("n") && arrays["n"].numel() == 1) s.n = arrays["n"].to(torch::kInt64).item<int64_t>();
  if (arrays.count("protocol")) {
    const torch::Tensor bytes = arrays["protocol"].to(torch::kUInt8).contiguous().reshape({-1});
    s.protocol = parse_protocol_json(
        std::string(reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()), static_cast<size_t>(bytes.numel())),
        path);
  }
  return s;
}

void check_reference_stats(const FeatureStats& stats, const std::string& path) {
  auto check = [&](const torch::Tensor& mu, const torch::Tensor& sigma, const std::string& mu_key,
                   const std::string& sigma_key) {
    if (!torch::isfinite(mu).all().item<bool>() || !torch::isfinite(sigma).all().item<bool>())
      throw ConfigError(path + ": " + mu_key + " or " + sigma_key + " holds NaN or Inf; make the reference again "
                        "(hamgan fid-stats)");
    const torch::Tensor s = sigma.to(torch::kDouble);
    const double scale = s.abs().max().item<double>();
    if ((s - s.transpose(0, 1)).abs().max().item<double>() > 1e-6 * std::max(scale, 1e-30))
      throw ConfigError(path + ": " + sigma_key + " is not symmetric, so not a covariance; make the reference again "
                        "(hamgan fid-stats)");
    const torch::Tensor eig = torch::linalg_eigvalsh(s);
    const double lo = eig.min().item<double>(), hi = eig.max().item<double>();
    if (lo < -1e-6 * std::max(std::abs(hi), 1e-30))
      throw ConfigError(path + ": " + sigma_key + " is not positive semi-definite (smallest eigenvalue " +
                        std::to_string(lo) + "), so not a covariance; make the reference again (hamgan fid-stats)");
  };
  check(stats.mu, stats.sigma, "mu", "sigma");
  if (stats.mu_s.defined()) check(stats.mu_s, stats.sigma_s, "mu_s", "sigma_s");
}

}  // namespace hamgan
