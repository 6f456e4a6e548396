#include "experiments/compare_statistics.h"

namespace hamgan {

FidComparison compare_fids(const std::vector<std::pair<std::string, std::vector<double>>>& fids) {
  FidComparison c;
  int best = -1;
  for (const auto& [name, values] : fids) {
    ConfigFid f;
    f.name = name;
    f.interval = mean_confidence_interval(values);
    if (f.interval.n > 0 && (best < 0 || f.interval.mean < c.configs[best].interval.mean))
      best = static_cast<int>(c.configs.size());
    c.configs.push_back(f);
  }
  if (best < 0) return c;
  c.configs[best].best = true;
  for (size_t i = 0; i < c.configs.size(); ++i) {
    ConfigFid& f = c.configs[i];
    if (f.best || f.interval.n == 0) continue;
    f.vs_best = welch_t_test(fids[i].second, fids[best].second);
    // Untestable (one seed) counts as within the noise: nothing shows it differs.
    f.within_noise = !f.vs_best.tested || f.vs_best.p >= kSignificanceLevel;
  }

  std::vector<double> tested_p;
  for (size_t i = 0; i < fids.size(); ++i)
    for (size_t j = i + 1; j < fids.size(); ++j) {
      if (fids[i].second.empty() || fids[j].second.empty()) continue;
      PairwiseFid p;
      p.a = fids[i].first, p.b = fids[j].first;
      p.test = welch_t_test(fids[i].second, fids[j].second);
      if (!p.test.tested) p.test.difference = c.configs[i].interval.mean - c.configs[j].interval.mean;
      if (p.test.tested) tested_p.push_back(p.test.p);
      c.pairs.push_back(p);
    }
  const std::vector<double> holm = holm_adjusted(tested_p);
  size_t k = 0;
  for (auto& p : c.pairs)
    if (p.test.tested) p.holm_p = holm[k++];
  return c;
}

}  // namespace hamgan
