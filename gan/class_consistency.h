#pragma once
// Class-consistency of a class-conditional generator: the fraction of
// class-balanced generated images that a classifier trained on the real data
// assigns to the class they were generated for (a CAS-like check that the
// conditioning works; 1/K for a generator that ignores its labels).
#include <torch/torch.h>

#include <vector>

#include "gan/generator.h"
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

}  // namespace hamgan
