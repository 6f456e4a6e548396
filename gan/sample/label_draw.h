#pragma once
// How the classes of sampled images are drawn under each label protocol
// (metrics/label_mode.h). z and labels come from separate streams of the same
// seed, so switching the protocol changes the classes and never the noise.
#include <torch/torch.h>

#include <string>

#include "data/dataset.h"
#include "metrics/label_mode.h"

namespace hamgan {

struct LabelDraw {
  LabelMode mode = LabelMode::balanced;
  torch::Tensor class_weights;  // dataset: float64 (K) class frequencies
  std::string source;           // dataset: the data set they were counted on

  // "balanced", "random", "dataset (class frequencies of PATH)": for logs and the stamp.
  std::string describe() const;
};

// int64 (n) labels in [0, num_classes). Balanced labels need no seed; random and
// dataset ones follow `seed`. ConfigError when dataset weights are missing or
// have another class count.
torch::Tensor draw_labels(int64_t n, int64_t num_classes, uint64_t seed, const LabelDraw& draw);

// The class frequencies of a labelled data set (reads labels only).
LabelDraw dataset_label_draw(const DatasetSpec& spec);

// `mode` with, for `dataset`, the frequencies of the data set `spec` names
// (ConfigError naming `what` when mode is dataset and spec.path is empty).
LabelDraw make_label_draw(LabelMode mode, const DatasetSpec& spec, const std::string& what);

}  // namespace hamgan
