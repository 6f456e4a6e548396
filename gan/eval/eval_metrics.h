#pragma once
// The metrics evaluation during training computes, one table row each: its
// name, which way it improves, what it needs opened, and how it is computed
// from the one set of generated samples every metric of an evaluation shares
// (docs/training.md, "Evaluation during training"). A new metric is a row in
// eval_metrics.cpp; one that needs another extractor also extends EvalExtractors,
// GeneratedSamples and the row layout in evaluation.cpp.
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "metrics/features.h"
#include "metrics/stats.h"

namespace hamgan {

// The feature extractors a run's metrics need and the real images' statistics
// for each, opened once per run (gan/eval/eval_extractors.h).
struct EvalExtractors {
  FeatureClassifier classifier{nullptr};
  std::unique_ptr<FeatureExtractor> classifier_features, inception, dinov2;  // null: no metric needs it
  FeatureStats classifier_real, inception_real, dinov2_real;  // inception_real has mu_s/sigma_s when sfid is asked
  std::string classifier_protocol, inception_protocol, dinov2_protocol;  // weights, preprocessing, labels
  std::string inception_reference, dinov2_reference;    // ", N real (FILE)"
  std::string classifier_reference;  // which real images fid_classifier compares with, and from which split
  int64_t inception_logits = 0;                         // width of the Inception's logits
  bool inception_spatial = false;                       // the Inception also gives sFID's features
};

// One evaluation's generated samples, gathered across ranks: columns of what
// the opened extractors made of them (undefined where that extractor is not open).
struct GeneratedSamples {
  int64_t count = 0;
  torch::Tensor classifier_features;     // (count, D) float32
  torch::Tensor classifier_predictions;  // (count) argmax class, as float32
  torch::Tensor inception_features;      // (count, 2048) float32
  torch::Tensor inception_logits;        // (count, K) float32, bias-free
  torch::Tensor inception_spatial;       // (count, 2023) float32, sFID's
  torch::Tensor dinov2_features;         // (count, D) float32
  torch::Tensor requested_classes;       // (count) the class each sample was generated for, as float32
};

struct MetricValue {
  double value = 0;
  std::string protocol;  // how it was measured, for the log
};

struct EvalMetric {
  std::string name;
  bool higher_is_better = false;
  bool needs_classifier = false;  // the domain classifier, with its held-out real statistics
  bool needs_inception = false;   // the FID Inception
  bool needs_reference = false;   // eval_reference: the Inception statistics of the real images
  MetricValue (*compute)(const GeneratedSamples& samples, const EvalExtractors& extractors) = nullptr;
  bool needs_spatial = false;     // the Inception's sFID features (and mu_s, sigma_s in the reference)
  bool needs_dinov2 = false;      // the DINOv2 network and its reference statistics
};

// Every row, in the order eval_metrics lists them; nullptr for a name not in the table.
const std::vector<EvalMetric>& eval_metric_table();
const EvalMetric* find_eval_metric(const std::string& name);

// Lookups on the table (false for a name not in it).
const std::vector<std::string>& eval_metric_names();
bool higher_is_better(const std::string& metric);
bool uses_classifier(const std::string& metric);
bool uses_inception(const std::string& metric);

}  // namespace hamgan
