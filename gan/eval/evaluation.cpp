#include "gan/eval/evaluation.h"

#include <map>
#include <memory>

#include "core/stop_signal.h"
#include "gan/sample/class_consistency.h"
#include "gan/sample/noise.h"
#include "gan/sample/sampler.h"
#include "gan/sample/standing_stats.h"
#include "metrics/classifier_training.h"
#include "metrics/features.h"
#include "metrics/frechet.h"
#include "metrics/image_source.h"
#include "metrics/stats.h"

namespace hamgan {
namespace {

constexpr int64_t kBatch = 250;
constexpr int64_t kRealImages = 10000;  // the whole Fashion-MNIST test split

// What evaluation keeps across calls within one process: the classifier, its
// feature extractor and the real images' feature statistics.
struct Evaluator {
  FeatureClassifier classifier{nullptr};
  std::unique_ptr<FeatureExtractor> features;
  FeatureStats real;
};

// Held-out real images (the IDX test split; other formats have one split) on the classifier's features.
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

// n class-balanced samples (fixed z per seed, quantised like saved samples) on the classifier's features.
FeatureStats generated_feature_stats(Generator& g, FeatureExtractor& fx, int64_t n, uint64_t seed) {
  torch::NoGradGuard no_grad;
  ScopedRngRestore keep_rng;  // the NMF's random bases follow the seed; training's stream is untouched
  const FixedNoise noise(n, g->config().z_dim, g->config().num_classes, seed);
  const bool was_training = g->is_training();
  g->eval();
  RunningStats stats;
  for (int64_t i = 0; i < n; i += kBatch) {
    throw_if_stop_requested("evaluation");
    const NoiseBatch b = noise.slice(i, std::min(kBatch, n - i));
    stats.add(fx.extract(quantize_images(generate(g, b.z, b.labels, kBatch))).features);
  }
  g->train(was_training);
  return stats.finish();
}

// Loaded (or built) once per process and kept for later evaluations; the real
// statistics depend on the data and its geometry as well as the classifier.
Evaluator& evaluator_for(const EvalSettings& s, torch::Device device) {
  static std::map<std::string, Evaluator> cache;
  const std::string key = s.classifier + "|" + s.dataset + "|" + std::to_string(s.resolution) + "|" +
                          std::to_string(s.image_channels) + "|" + device.str();
  auto it = cache.find(key);
  if (it == cache.end()) {
    Evaluator e;
    e.classifier = ensure_classifier(s.classifier, device);
    e.features = make_classifier_features(e.classifier, device, "classifier:" + s.classifier);
    e.real = real_feature_stats(*e.features, s);
    it = cache.emplace(key, std::move(e)).first;
  }
  return it->second;
}

}  // namespace

void prepare_evaluation(const EvalSettings& s, torch::Device device) {
  if (!s.classifier.empty()) evaluator_for(s, device);
}

MetricRow evaluate_during_training(Generator& g, const EvalSettings& s) {
  if (s.classifier.empty()) return {};
  Evaluator& e = evaluator_for(s, g->parameters().front().device());
  // Standing statistics on the weights being evaluated; training carries on with the stored buffers.
  const bool was_training = g->is_training();
  BufferSnapshot keep_buffers(*g);
  accumulate_standing_stats(g, s.standing_stats, s.standing_batch_size, s.seed + 778);
  // The same z for every evaluation of a run, so the curve shows the generator changing, not the noise.
  const ClassConsistency cc = class_consistency(g, e.classifier, s.n, s.seed + 777);
  const FeatureStats fake = generated_feature_stats(g, *e.features, std::max<int64_t>(s.n, 2), s.seed + 777);
  const double fid = frechet_distance(fake.mu, fake.sigma, e.real.mu, e.real.sigma).distance;
  g->train(was_training);
  return {{"class_consistency", cc.overall}, {"fid_classifier", fid}};
}

}  // namespace hamgan
