#include "gan/eval/eval_extractors.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "core/errors.h"
#include "core/stop_signal.h"
#include "data/formats.h"
#include "gan/eval/eval_metrics.h"
#include "metrics/classifier_fit.h"
#include "metrics/classifier_training.h"
#include "metrics/fid.h"
#include "metrics/image_source.h"

namespace hamgan {
namespace {

constexpr int64_t kBatch = 250;
constexpr int64_t kRealImages = 10000;  // the whole Fashion-MNIST test split

bool wants(const EvalSettings& s, bool EvalMetric::*need) {
  return std::any_of(s.metrics.begin(), s.metrics.end(),
                     [&](const std::string& m) { return find_eval_metric(m)->*need; });
}

// Only IDX folders keep a test split; other formats open the same images for either split.
bool has_test_split(const std::string& dataset) {
  return std::filesystem::is_directory(dataset) && looks_like_idx_dir(dataset);
}

// Held-out real images (the IDX test split, else the training images) on the classifier's features.
FeatureStats real_feature_stats(FeatureExtractor& fx, const EvalSettings& s) {
  DatasetSpec spec;
  spec.path = s.dataset;
  spec.split = "test";
  spec.size = s.resolution;
  spec.channels = s.image_channels;
  spec.quiet = true;
  const auto source = make_dataset_source(open_dataset(spec), kRealImages, /*seed=*/0);
  RunningStats stats;
  for (int64_t i = 0; i < source->size(); i += kBatch) {
    throw_if_stop_requested("evaluation");
    stats.add(fx.extract(source->batch(i, std::min(kBatch, source->size() - i))).features);
  }
  return stats.finish();
}

void open_classifier(EvalExtractors& e, const EvalSettings& s, torch::Device device) {
  check_eval_classifier(s);  // before a missing one is trained: minutes for a classifier that would not fit
  e.classifier = ensure_classifier(s.classifier, device);
  e.classifier_features = make_classifier_features(e.classifier, device, "classifier:" + s.classifier);
  e.classifier_real = real_feature_stats(*e.classifier_features, s);
  FeatureOptions o;
  o.spec = "classifier:" + s.classifier;
  StatsProtocol p = extractor_protocol(o, *e.classifier_features);
  p.image_size = s.resolution;
  // Against training images the distance also rewards memorising them: the log says which it was.
  e.classifier_reference = std::to_string(e.classifier_real.n) + " real (" + s.dataset +
                           (has_test_split(s.dataset) ? ", test split)"
                                                      : ", training images: this data set has no test split)");
  e.classifier_protocol = protocol_summary(p) + ", " + e.classifier_reference;
}

// The real images' statistics in `path` (the config key `key`), checked against
// the protocol the generated side will have: same feature size, and same
// weights, preprocessing and image size when the file is stamped. `make` says
// how to make a matching file.
FeatureStats read_reference(const std::string& key, const std::string& path, const StatsProtocol& ours,
                            const std::string& network, const std::string& make) {
  FeatureStats real = load_stats(path);
  check_reference_stats(real, path);  // at the start, not at the first evaluation hours in
  if (real.mu.size(0) != ours.feature_dim)
    throw ConfigError("train: " + key + " " + path + " has " + std::to_string(real.mu.size(0)) + "-d statistics, the " +
                      network + " gives " + std::to_string(ours.feature_dim) + "-d features; " + make);
  if (!real.protocol.stamped()) {
    std::cerr << "train: note: " << key << " " << path
              << " carries no protocol stamp (made by another tool); its distances compare only if it used the same "
              << network << " weights, resize and image size\n";
  } else if (const std::string mismatch = protocol_mismatch(real.protocol, ours); !mismatch.empty()) {
    throw ConfigError("train: " + key + " " + path + " was made under another protocol than this run's " +
                      "evaluation (" + mismatch + "); " + make);
  }
  return real;
}

// The Inception, and the reference statistics checked against the protocol the
// generated side will have: same weights, preprocessing and image size.
void open_inception(EvalExtractors& e, const EvalSettings& s, torch::Device device) {
  FeatureOptions o;
  o.inception = s.inception;
  o.device = device.str();
  o.sfid = e.inception_spatial = wants(s, &EvalMetric::needs_spatial);
  e.inception = make_feature_extractor(o);  // no weights: one line naming the file to get
  StatsProtocol ours = extractor_protocol(o, *e.inception);
  ours.image_size = s.resolution;
  ours.labels = to_string(s.labels);
  e.inception_protocol = protocol_summary(ours);
  e.inception_logits =
      e.inception->extract(torch::zeros({1, s.image_channels, s.resolution, s.resolution}, torch::kUInt8)).logits.size(1);
  if (!wants(s, &EvalMetric::needs_reference)) return;
  const std::string make = "make it with `hamgan fid-stats DATA --inception " + ours.weights + " --size " +
                           std::to_string(s.resolution) + (o.sfid ? " --sfid" : "") + " --out " + s.reference + "`";
  if (s.reference.empty())
    throw ConfigError("train: fid_inception needs eval_reference, the Inception statistics of the real images; " + make);
  e.inception_real = read_reference("eval_reference", s.reference, ours, "Inception", make);
  if (o.sfid && !e.inception_real.mu_s.defined())
    throw ConfigError("train: sfid needs sFID statistics (mu_s, sigma_s) in eval_reference " + s.reference + "; " + make);
  e.inception_reference = ", " + std::to_string(e.inception_real.n) + " real (" + s.reference + ")";
}

// The DINOv2 network and its reference statistics, checked the same way.
void open_dinov2(EvalExtractors& e, const EvalSettings& s, torch::Device device) {
  if (s.dinov2.empty())
    throw ConfigError("train: the dinov2 metric needs `dinov2`, a DINOv2 TorchScript file (scripts/convert_dinov2.py)");
  FeatureOptions o;
  o.spec = "dinov2:" + s.dinov2;
  o.dinov2_resize = s.dinov2_resize;
  o.device = device.str();
  e.dinov2 = make_feature_extractor(o);
  StatsProtocol ours = extractor_protocol(o, *e.dinov2);
  ours.image_size = s.resolution;
  ours.labels = to_string(s.labels);
  e.dinov2_protocol = protocol_summary(ours);
  const std::string make = "make it with `hamgan fid-stats DATA --features dinov2:" + s.dinov2 + " --dinov2_resize " +
                           to_string(s.dinov2_resize) + " --size " + std::to_string(s.resolution) + " --out " +
                           (s.dinov2_reference.empty() ? "REF.npz" : s.dinov2_reference) + "`";
  if (s.dinov2_reference.empty())
    throw ConfigError("train: dinov2 needs eval_reference_dinov2, the DINOv2 statistics of the real images; " + make);
  e.dinov2_real = read_reference("eval_reference_dinov2", s.dinov2_reference, ours, "DINOv2 network", make);
  e.dinov2_reference = ", " + std::to_string(e.dinov2_real.n) + " real (" + s.dinov2_reference + ")";
}

std::string known_metrics() {
  std::string out;
  for (const auto& name : eval_metric_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

void check_eval_classifier(const EvalSettings& s) {
  if (!wants(s, &EvalMetric::needs_classifier)) return;
  JudgedImages model;
  model.command = "train";
  model.what = "the model makes";
  model.channels = s.image_channels;
  model.num_classes = s.num_classes;
  model.dataset = s.dataset;
  model.image_size = s.resolution;
  model.use = "--classifier FILE";
  check_classifier_fits(s.classifier, classifier_config_at(s.classifier), model);
}

EvalExtractors open_eval_extractors(const EvalSettings& s, torch::Device device) {
  for (const auto& m : s.metrics)
    if (!find_eval_metric(m))
      throw ConfigError("train: no evaluation metric " + m + " (known: " + known_metrics() + ")");
  EvalExtractors e;
  if (wants(s, &EvalMetric::needs_classifier)) open_classifier(e, s, device);
  if (wants(s, &EvalMetric::needs_inception)) open_inception(e, s, device);
  if (wants(s, &EvalMetric::needs_dinov2)) open_dinov2(e, s, device);
  return e;
}

}  // namespace hamgan
