// Streaming feature statistics and their .npz files.
#include "metrics/stats.h"

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
  if (stats.n > 0) arrays["n"] = torch::tensor(stats.n, torch::kInt64);
  if (stats.protocol.stamped()) {
    const std::string text = protocol_json(stats.protocol);
    arrays["protocol"] = torch::from_blob(const_cast<char*>(text.data()), {static_cast<int64_t>(text.size())},
                                          torch::kUInt8).clone();
  }
  write_npz(path, arrays, compressed);
}

FeatureStats load_stats(const std::string& path) {
  auto arrays = read_npz(path, {"mu", "sigma", "n", "protocol"});
  if (!arrays.count("mu") || !arrays.count("sigma"))
    throw DataError(path + ": no `mu` and `sigma` arrays (not an FID statistics file; make one with 'hamgan fid-stats')");
  FeatureStats s;
  s.mu = arrays["mu"].to(torch::kFloat64).reshape({-1});
  s.sigma = arrays["sigma"].to(torch::kFloat64);
  if (s.sigma.dim() != 2 || s.sigma.size(0) != s.mu.size(0) || s.sigma.size(1) != s.mu.size(0))
    throw DataError(path + ": sigma shape " + c10::str(s.sigma.sizes()) + " does not match mu length " +
                    std::to_string(s.mu.size(0)));
  if (arrays.count("n") && arrays["n"].numel() == 1) s.n = arrays["n"].to(torch::kInt64).item<int64_t>();
  if (arrays.count("protocol")) {
    const torch::Tensor bytes = arrays["protocol"].to(torch::kUInt8).contiguous().reshape({-1});
    s.protocol = parse_protocol_json(
        std::string(reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()), static_cast<size_t>(bytes.numel())),
        path);
  }
  return s;
}

}  // namespace hamgan
