// Fréchet distance in float64 (notes in frechet.h).
#include "metrics/frechet.h"

#include <cmath>

#include "core/errors.h"
#include "core/stop_signal.h"

namespace hamgan {

namespace {
struct RootInfo {
  double trace = 0, imaginary = 0, scale = 1;  // scale: √ of the largest eigenvalue
  bool singular = false;
};

RootInfo root_info(const torch::Tensor& sigma1, const torch::Tensor& sigma2) {
  auto s1 = sigma1.to(torch::kCPU, torch::kFloat64);
  auto s2 = sigma2.to(torch::kCPU, torch::kFloat64);
  s1 = 0.5 * (s1 + s1.t());  // symmetrise away storage noise
  s2 = 0.5 * (s2 + s2.t());
  // A = Σ₁^½ = V diag(√max(w,0)) Vᵀ
  // Each of these takes seconds for 2048-d features on a CPU: a stop is honoured between them.
  throw_if_stop_requested("Fréchet distance");
  auto [w, V] = torch::linalg_eigh(s1);
  throw_if_stop_requested("Fréchet distance");
  auto A = torch::matmul(V * w.clamp_min(0).sqrt().unsqueeze(0), V.t());  // (D, D)
  auto M = torch::matmul(torch::matmul(A, s2), A);
  M = 0.5 * (M + M.t());
  throw_if_stop_requested("Fréchet distance");
  auto lambda = torch::linalg_eigvalsh(M);  // ascending, real
  // √λ for λ < 0 is purely imaginary: it adds nothing to the real trace.
  RootInfo r;
  r.trace = lambda.clamp_min(0).sqrt().sum().item<double>();
  r.imaginary = std::sqrt(std::max(0.0, -lambda.min().item<double>()));
  r.scale = std::sqrt(std::max(0.0, lambda.max().item<double>()));
  // Rank deficiency of Σ₁ shows in w, of Σ₂ (given full-rank Σ₁) in λ.
  const double tol = double(w.size(0)) * 2.2e-16;
  auto deficient = [tol](const torch::Tensor& e) {
    return e.min().item<double>() <= tol * e.abs().max().item<double>();
  };
  r.singular = deficient(w) || deficient(lambda);
  return r;
}
}  // namespace

double trace_sqrt_product(const torch::Tensor& sigma1, const torch::Tensor& sigma2, double* imaginary) {
  auto r = root_info(sigma1, sigma2);
  if (imaginary) *imaginary = r.imaginary;
  return r.trace;
}

FrechetResult frechet_distance(const torch::Tensor& mu1, const torch::Tensor& sigma1, const torch::Tensor& mu2,
                               const torch::Tensor& sigma2, const FrechetOptions& options) {
  if (mu1.dim() != 1 || mu2.dim() != 1 || mu1.size(0) != mu2.size(0))
    throw DataError("fid: mean vectors have different shapes " + c10::str(mu1.sizes()) + " vs " +
                    c10::str(mu2.sizes()) + " (statistics from different feature extractors?)");
  const int64_t d = mu1.size(0);
  for (auto* s : {&sigma1, &sigma2})
    if (s->dim() != 2 || s->size(0) != d || s->size(1) != d)
      throw DataError("fid: covariance shape " + c10::str(s->sizes()) + " does not match mean length " +
                      std::to_string(d));
  auto m1 = mu1.to(torch::kCPU, torch::kFloat64), m2 = mu2.to(torch::kCPU, torch::kFloat64);
  auto s1 = sigma1.to(torch::kCPU, torch::kFloat64), s2 = sigma2.to(torch::kCPU, torch::kFloat64);
  for (auto* t : {&m1, &m2, &s1, &s2})
    if (!torch::isfinite(*t).all().item<bool>())
      throw DataError("fid: statistics contain NaN or infinity (diverged generator or corrupt stats file)");

  FrechetResult r;
  auto diff = m1 - m2;
  r.mean_term = diff.dot(diff).item<double>();
  if (options.eps_offset) {
    auto offset = torch::eye(d, torch::kFloat64) * options.eps;
    s1 = s1 + offset;
    s2 = s2 + offset;
  }
  auto root = root_info(s1, s2);
  r.trace_sqrt = root.trace;
  r.imaginary = root.imaginary;
  r.singular = root.singular;
  // pytorch-fid's absolute 1e-3, scaled for features with large eigenvalues
  // (noise in λ is relative to the largest one).
  if (r.imaginary > options.max_imaginary * std::max(1.0, root.scale))
    throw DataError("fid: covariance product has an imaginary square-root component " + std::to_string(r.imaginary) +
                    " (> " + std::to_string(options.max_imaginary) + "): a covariance is not positive semi-definite");
  // Traces of the original (un-offset) Σ, as pytorch-fid does in its fallback branch.
  double tr1 = sigma1.to(torch::kFloat64).trace().item<double>();
  double tr2 = sigma2.to(torch::kFloat64).trace().item<double>();
  r.distance = r.mean_term + tr1 + tr2 - 2.0 * r.trace_sqrt;
  return r;
}

}  // namespace hamgan
