#pragma once
// Opening what a run's metrics need, once per run: a bad file or a reference
// made under another protocol fails the run at its start rather than at its
// first evaluation (docs/training.md, "Evaluation during training").
#include <torch/torch.h>

#include "gan/eval/eval_metrics.h"
#include "gan/eval/eval_settings.h"

namespace hamgan {

// Opens the extractors the metrics of `settings` need (their rows in
// eval_metrics.h) and reads or computes the real statistics, training the
// classifier when its file is missing. ConfigError for a metric not in the table.
EvalExtractors open_eval_extractors(const EvalSettings& settings, torch::Device device);

// When a metric of `settings` uses the classifier: ConfigError unless its file
// (or, where it is missing, the Fashion-MNIST one that would be trained in its
// place) takes the model's channels and classes (metrics/classifier_fit.h).
void check_eval_classifier(const EvalSettings& settings);

}  // namespace hamgan
