#pragma once
// Class-consistency of a class-conditional generator: the fraction of
// class-balanced generated images that a classifier trained on the real data
// assigns to the class they were generated for (a CAS-like check that the
// conditioning works; 1/K for a generator that ignores its labels).
#include <torch/torch.h>

#include <string>
#include <vector>

#include "gan/model/generator.h"
#include "gan/sample/standing_stats.h"
#include "metrics/classifier.h"

namespace hamgan {

struct ClassConsistency {
  double overall = 0;               // fraction over all n images
  std::vector<double> per_class;    // fraction per requested class
  int64_t n = 0;
};

// Generates n images (labels i mod K, z from `seed`) with g in eval mode,
// quantises them to uint8 as saved samples are, and classifies them.
ClassConsistency class_consistency(Generator& g, FeatureClassifier& classifier, int64_t n, uint64_t seed,
                                   int64_t batch_size = 250);

struct ClassConsistencyConfig {
  std::string checkpoint;  // checkpoint file or run directory
  std::string classifier = "runs/classifier/fmnist_classifier.pt";  // built on demand if missing
  int64_t n = 10000;       // generated images (class-balanced)
  uint64_t seed = 0;
  bool raw = false;        // raw G weights instead of the EMA
  int64_t standing_stats = kDefaultStandingBatches;  // batches for G's BN statistics; 0 = stored
  std::string device = "auto";
  std::string resample_conv = "checkpoint";  // or separate | folded (load_generator.h)
};

// Loads the generator and classifier and measures class-consistency.
ClassConsistency run_class_consistency(const ClassConsistencyConfig& cfg);

}  // namespace hamgan
