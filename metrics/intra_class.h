#pragma once
// Intra-class FID (Miyato & Koyama, "cGANs with projection discriminator", 2018):
// the FID between A's and B's images of one class, for every class both sides
// have, summarised as the mean over classes and the worst classes. A class
// conditional generator can reach a good FID while mixing classes up; this
// catches it.
#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "metrics/frechet.h"
#include "metrics/stats.h"

namespace hamgan {

struct ClassFid {
  int64_t label = 0;
  double fid = 0;
  int64_t n_a = 0, n_b = 0;  // samples of this class on each side
};

struct IntraClassFid {
  std::vector<ClassFid> classes;  // by class index
  double mean = 0;                // mean FID over `classes`
  std::vector<int64_t> skipped;   // classes with fewer than 2 samples on a side (no covariance)
  int64_t min_samples = 0;        // fewest samples of any compared class on either side
};

// Per-class statistics of kept features (N, D) with their int64 labels (N):
// one RunningStats per class (classes with one sample get n only, no mu/sigma).
std::map<int64_t, FeatureStats> class_stats(const torch::Tensor& features, const torch::Tensor& labels);

// FID per class between (features_a, labels_a) and (features_b, labels_b).
// Throws DataError when no class has 2 samples on both sides.
IntraClassFid intra_class_fid(const torch::Tensor& features_a, const torch::Tensor& labels_a,
                              const torch::Tensor& features_b, const torch::Tensor& labels_b,
                              const FrechetOptions& options = {});

// The `worst` classes with the largest FID, largest first.
std::vector<ClassFid> worst_classes(const IntraClassFid& result, int64_t worst = 5);

}  // namespace hamgan
