#pragma once
// A random-weight Fashion-MNIST-shaped classifier: enough to exercise evaluation
// in training tests, whose numbers are not judged.
#include <torch/torch.h>

#include <string>

#include "metrics/classifier.h"

namespace hamgan::test {

inline std::string tiny_classifier(const std::string& dir) {
  torch::manual_seed(5);
  ClassifierConfig cc;
  cc.width = 4;
  cc.feature_dim = 16;
  FeatureClassifier net(cc);
  const std::string path = dir + "/classifier.pt";
  save_classifier(path, net);
  return path;
}

}  // namespace hamgan::test
