// Inception Score and KID (see scores.h).
#include "metrics/scores.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

#include "core/errors.h"

namespace hamgan {
namespace {

MeanStd mean_std(const std::vector<double>& v) {
  MeanStd r;
  for (double x : v) r.mean += x;
  r.mean /= double(v.size());
  for (double x : v) r.std += (x - r.mean) * (x - r.mean);
  r.std = std::sqrt(r.std / double(v.size()));
  return r;
}

}  // namespace

MeanStd inception_score(const torch::Tensor& logits, int64_t splits) {
  if (logits.dim() != 2 || logits.size(0) < splits || splits < 1)
    throw DataError("is: need at least " + std::to_string(splits) + " samples for " + std::to_string(splits) + " splits");
  auto l = logits.to(torch::kCPU, torch::kFloat64);
  auto p = l.softmax(1), log_p = l.log_softmax(1);
  const int64_t n = l.size(0);
  std::vector<double> scores;
  for (int64_t i = 0; i < splits; ++i) {
    auto a = i * n / splits, b = (i + 1) * n / splits;
    auto pc = p.slice(0, a, b), lc = log_p.slice(0, a, b);
    auto q = pc.mean(0, true);                        // p(y) over the split, (1, K)
    auto kl = (pc * (lc - q.log())).sum(1).mean();    // E_x KL(p(y|x) ‖ p(y))
    scores.push_back(std::exp(kl.item<double>()));
  }
  return mean_std(scores);
}

double polynomial_mmd2(const torch::Tensor& x, const torch::Tensor& y, int64_t degree, double coef0) {
  const int64_t m = x.size(0);
  const double gamma = 1.0 / double(x.size(1));
  auto kernel = [&](const torch::Tensor& a, const torch::Tensor& b) {
    return (torch::matmul(a, b.t()) * gamma + coef0).pow(degree);  // (m, m)
  };
  auto kxx = kernel(x, x), kyy = kernel(y, y), kxy = kernel(x, y);
  double sxx = (kxx.sum() - kxx.diagonal().sum()).item<double>();
  double syy = (kyy.sum() - kyy.diagonal().sum()).item<double>();
  double sxy = kxy.sum().item<double>();
  return (sxx + syy) / double(m * (m - 1)) - 2.0 * sxy / double(m * m);
}

MeanStd kernel_inception_distance(const torch::Tensor& x, const torch::Tensor& y, const KidOptions& o) {
  if (x.dim() != 2 || y.dim() != 2 || x.size(1) != y.size(1))
    throw DataError("kid: feature sets have different widths " + c10::str(x.sizes()) + " vs " + c10::str(y.sizes()));
  const int64_t m = std::min({o.subset_size, x.size(0), y.size(0)});
  if (m < 2) throw DataError("kid: need at least 2 samples on each side");
  auto xd = x.to(torch::kCPU, torch::kFloat64), yd = y.to(torch::kCPU, torch::kFloat64);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(o.seed);
  std::vector<double> values;
  for (int64_t s = 0; s < o.subsets; ++s) {
    auto ix = torch::randperm(xd.size(0), gen, torch::kInt64).slice(0, 0, m);
    auto iy = torch::randperm(yd.size(0), gen, torch::kInt64).slice(0, 0, m);
    values.push_back(polynomial_mmd2(xd.index_select(0, ix), yd.index_select(0, iy), o.degree, o.coef0));
  }
  return mean_std(values);
}

}  // namespace hamgan
