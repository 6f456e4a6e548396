#pragma once
// A fixed fraction of a dataset, for data-limited experiments (DiffAugment and
// ADA report FID on 10%, 20%, ... of a training set): the same images whatever
// the run's seed, so runs compared with each other train on the same subset, and
// the classes in their original proportions (each class keeps round(f · its count)
// images, at least one), so a small fraction does not drop a class by chance.
#include <memory>

#include "data/dataset.h"

namespace hamgan {

// The subset's images are chosen by a permutation of each class seeded by this
// constant, never by the run's seed.
inline constexpr uint64_t kSubsetSeed = 20200612;

// `fraction` in (0, 1]; 1 returns `inner` itself. Reads every label once (formats
// read labels without pixels).
std::shared_ptr<Dataset> dataset_fraction(std::shared_ptr<Dataset> inner, double fraction);

}  // namespace hamgan
