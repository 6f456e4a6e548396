#pragma once
// The FID side of a `hamgan compare` report: each config's mean FID over seeds
// with its 95% interval, the best config and which others are within the
// seed-to-seed noise of it, and Welch's t-test between every pair of configs
// (with Holm's correction for testing many pairs at once).
#include <string>
#include <utility>
#include <vector>

#include "experiments/seed_statistics.h"

namespace hamgan {

// A difference counts as larger than the noise when its p-value is below this.
constexpr double kSignificanceLevel = 0.05;

struct ConfigFid {
  std::string name;
  MeanInterval interval;   // over the seeds that measured FID; n = 0 when none did
  bool best = false;       // lowest mean FID
  bool within_noise = false;  // not the best, and not shown to differ from it (p ≥ 0.05 or untestable)
  WelchTest vs_best;       // this config − the best; tested false for the best itself
};

struct PairwiseFid {
  std::string a, b;        // the difference is mean(a) − mean(b)
  WelchTest test;
  double holm_p = 1;       // Holm-adjusted over all tested pairs; meaningful when test.tested
  bool larger_than_noise() const { return test.tested && test.p < kSignificanceLevel; }
};

struct FidComparison {
  std::vector<ConfigFid> configs;  // in the given order
  std::vector<PairwiseFid> pairs;  // every pair of configs with FID, in the given order
};

// `fids` holds each config's per-seed final FIDs, already stripped of unmeasured ones.
FidComparison compare_fids(const std::vector<std::pair<std::string, std::vector<double>>>& fids);

}  // namespace hamgan
