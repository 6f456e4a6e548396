// Precision, recall, density and coverage (see prdc.h).
#include "metrics/prdc.h"

#include <algorithm>

#include "core/errors.h"

namespace hamgan {
namespace {

// Rows per block so a (rows, cols) float64 block stays within the budget.
int64_t block_rows(int64_t cols, int64_t budget) { return std::max<int64_t>(1, budget / std::max<int64_t>(1, cols)); }

// ‖a_i − b_j‖² = ‖a_i‖² + ‖b_j‖² − 2 a_i·b_j, clamped at 0 against cancellation.
// Comparing squares gives the same answers as prdc's distances, without roots.
torch::Tensor squared_distances(const torch::Tensor& a, const torch::Tensor& a_sq, const torch::Tensor& b,
                                const torch::Tensor& b_sq) {
  return (a_sq.unsqueeze(1) + b_sq.unsqueeze(0)).addmm_(a, b.t(), 1.0, -2.0).clamp_min_(0.0);  // (rows, M)
}

void check_set(const torch::Tensor& x, int64_t k, const char* what) {
  if (x.dim() != 2) throw DataError(std::string("prdc: ") + what + " features must be (N, D), got " + c10::str(x.sizes()));
  if (x.size(0) <= k)
    throw DataError(std::string("prdc: ") + what + " features have " + std::to_string(x.size(0)) +
                    " rows; the k-th nearest neighbour needs more than k = " + std::to_string(k));
}

}  // namespace

torch::Tensor knn_radii_squared(const torch::Tensor& features, int64_t k, int64_t block_elements) {
  TORCH_CHECK(k >= 1, "knn_radii_squared: k must be ≥ 1");
  check_set(features, k, "the");
  torch::NoGradGuard no_grad;
  const auto x = features.to(torch::kFloat64).contiguous();
  const auto sq = x.pow(2).sum(1);
  const int64_t n = x.size(0), rows = block_rows(n, block_elements);
  std::vector<torch::Tensor> radii;
  for (int64_t i = 0; i < n; i += rows) {
    const int64_t e = std::min(n, i + rows);
    auto d2 = squared_distances(x.slice(0, i, e), sq.slice(0, i, e), x, sq);
    radii.push_back(std::get<0>(d2.kthvalue(k + 1, 1)));  // the smallest is the point itself
  }
  return torch::cat(radii);
}

PrdcResult compute_prdc(const torch::Tensor& real_in, const torch::Tensor& fake_in, const PrdcOptions& o) {
  if (o.k < 1) throw ConfigError("prdc: k must be ≥ 1");
  check_set(real_in, o.k, "real");
  check_set(fake_in, o.k, "fake");
  if (real_in.size(1) != fake_in.size(1))
    throw DataError("prdc: real features are " + std::to_string(real_in.size(1)) + "-d, fake ones " +
                    std::to_string(fake_in.size(1)) + "-d");
  torch::NoGradGuard no_grad;
  const auto real = real_in.to(torch::kFloat64).contiguous();
  const auto fake = fake_in.to(real.device(), torch::kFloat64).contiguous();
  const auto r_real = knn_radii_squared(real, o.k, o.block_elements);  // (N)
  const auto r_fake = knn_radii_squared(fake, o.k, o.block_elements);  // (M)
  const auto real_sq = real.pow(2).sum(1), fake_sq = fake.pow(2).sum(1);
  const int64_t n = real.size(0), m = fake.size(0), rows = block_rows(m, o.block_elements);
  // One pass over real-row blocks of the real × fake distances.
  auto balls_holding = torch::zeros({m}, real.options().dtype(torch::kInt64));  // per fake: real balls around it
  auto recalled = torch::zeros({n}, balls_holding.options()), covered = torch::zeros({n}, balls_holding.options());
  for (int64_t i = 0; i < n; i += rows) {
    const int64_t e = std::min(n, i + rows);
    auto d2 = squared_distances(real.slice(0, i, e), real_sq.slice(0, i, e), fake, fake_sq);  // (rows, M)
    const auto radius = r_real.slice(0, i, e).unsqueeze(1);
    balls_holding += (d2 < radius).sum(0);
    recalled.slice(0, i, e).copy_((d2 < r_fake.unsqueeze(0)).any(1));
    covered.slice(0, i, e).copy_(std::get<0>(d2.min(1)) < radius.squeeze(1));
  }
  PrdcResult r;
  r.k = o.k;
  r.n_real = n;
  r.n_fake = m;
  r.precision = (balls_holding > 0).sum().item<int64_t>() / double(m);
  r.density = balls_holding.sum().item<int64_t>() / (double(o.k) * double(m));
  r.recall = recalled.sum().item<int64_t>() / double(n);
  r.coverage = covered.sum().item<int64_t>() / double(n);
  return r;
}

}  // namespace hamgan
