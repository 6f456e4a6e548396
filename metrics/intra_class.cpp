// Intra-class FID (see intra_class.h).
#include "metrics/intra_class.h"

#include <algorithm>

#include "core/errors.h"

namespace hamgan {

// Kept features rather than per-class running sums during extraction: K classes
// of D × D float64 sums would take K·D²·8 bytes (33 GB for 1000 Inception
// classes), N × D float32 features 400 MB at 50k.
std::map<int64_t, FeatureStats> class_stats(const torch::Tensor& features, const torch::Tensor& labels) {
  TORCH_CHECK(features.dim() == 2 && labels.dim() == 1 && labels.size(0) == features.size(0),
              "class_stats: expects (N, D) features and (N) labels");
  const auto y = labels.to(torch::kCPU, torch::kInt64).contiguous();
  const auto classes = std::get<0>(at::_unique(y, /*sorted=*/true));
  std::map<int64_t, RunningStats> running;
  for (int64_t i = 0; i < classes.size(0); ++i) {
    const int64_t c = classes[i].item<int64_t>();
    const auto rows = (y == c).nonzero().squeeze(1).to(features.device());
    running[c].add(features.index_select(0, rows));
  }
  std::map<int64_t, FeatureStats> out;
  for (auto& [c, r] : running)
    if (r.count() >= 2) out[c] = r.finish();
    else out[c] = FeatureStats{torch::Tensor(), torch::Tensor(), r.count(), {}};  // too few for a covariance
  return out;
}

IntraClassFid intra_class_fid(const torch::Tensor& features_a, const torch::Tensor& labels_a,
                              const torch::Tensor& features_b, const torch::Tensor& labels_b,
                              const FrechetOptions& options) {
  const auto a = class_stats(features_a, labels_a), b = class_stats(features_b, labels_b);
  IntraClassFid r;
  std::vector<int64_t> all;
  for (auto& [c, s] : a) all.push_back(c);
  for (auto& [c, s] : b)
    if (!a.count(c)) all.push_back(c);
  std::sort(all.begin(), all.end());
  double sum = 0;
  for (int64_t c : all) {
    auto ia = a.find(c), ib = b.find(c);
    const int64_t na = ia == a.end() ? 0 : ia->second.n, nb = ib == b.end() ? 0 : ib->second.n;
    if (na < 2 || nb < 2) {
      r.skipped.push_back(c);
      continue;
    }
    const auto f = frechet_distance(ia->second.mu, ia->second.sigma, ib->second.mu, ib->second.sigma, options);
    r.classes.push_back({c, f.distance, na, nb});
    sum += f.distance;
    r.min_samples = r.classes.size() == 1 ? std::min(na, nb) : std::min({r.min_samples, na, nb});
  }
  if (r.classes.empty())
    throw DataError("intra-class FID: no class has 2 or more samples on both sides (" + std::to_string(all.size()) +
                    " classes seen); use more samples (--n) or inputs with the same classes");
  r.mean = sum / double(r.classes.size());
  return r;
}

std::vector<ClassFid> worst_classes(const IntraClassFid& result, int64_t worst) {
  auto v = result.classes;
  std::stable_sort(v.begin(), v.end(), [](const ClassFid& x, const ClassFid& y) { return x.fid > y.fid; });
  if (worst >= 0 && int64_t(v.size()) > worst) v.resize(worst);
  return v;
}

}  // namespace hamgan
