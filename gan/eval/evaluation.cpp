#include "gan/eval/evaluation.h"

#include <map>
#include <memory>

#include "core/stop_signal.h"
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

// This rank's share of n class-balanced samples (fixed z per seed, quantised
// like saved samples), as rows [features..., predicted class, requested class]
// padded to an equal share per rank (padding rows carry class -1).
torch::Tensor generated_rows(Generator& g, FeatureExtractor& fx, int64_t n, uint64_t seed, const EvalShards& shards) {
  torch::NoGradGuard no_grad;
  ScopedRngRestore keep_rng;  // the NMF's random bases follow the seed; training's stream is untouched
  const FixedNoise noise(n, g->config().z_dim, g->config().num_classes, seed);
  const int64_t share = (n + shards.world - 1) / shards.world;
  const int64_t from = std::min(n, shards.rank * share), to = std::min(n, from + share);
  const bool was_training = g->is_training();
  g->eval();
  std::vector<torch::Tensor> rows;
  for (int64_t i = from; i < to; i += kBatch) {
    throw_if_stop_requested("evaluation");
    const NoiseBatch b = noise.slice(i, std::min(kBatch, to - i));
    const FeatureBatch fb = fx.extract(quantize_images(generate(g, b.z, b.labels, kBatch)));
    const torch::Tensor pred = fb.logits.argmax(1).to(torch::kCPU, torch::kFloat64).unsqueeze(1);
    const torch::Tensor asked = b.labels.to(torch::kFloat64).unsqueeze(1);
    rows.push_back(torch::cat({fb.features.to(torch::kCPU, torch::kFloat64), pred, asked}, 1));
  }
  g->train(was_training);
  const int64_t width = fx.dim() + 2;
  torch::Tensor mine = rows.empty() ? torch::empty({0, width}, torch::kFloat64) : torch::cat(rows);
  if (!shards.gather) return mine;
  torch::Tensor padded = torch::full({share, width}, -1.0, torch::kFloat64);
  padded.slice(0, 0, mine.size(0)).copy_(mine);
  const torch::Tensor all = shards.gather(padded);
  return all.index({all.select(1, width - 1) >= 0});
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

MetricRow evaluate_during_training(Generator& g, const EvalSettings& s, const EvalShards& shards) {
  if (s.classifier.empty()) return {};
  Evaluator& e = evaluator_for(s, g->parameters().front().device());
  // Standing statistics on the weights being evaluated; training carries on with the stored buffers.
  const bool was_training = g->is_training();
  BufferSnapshot keep_buffers(*g);
  accumulate_standing_stats(g, s.standing_stats, s.standing_batch_size, s.seed + 778);
  // The same z for every evaluation of a run, so the curve shows the generator changing, not the noise.
  const int64_t n = std::max<int64_t>(s.n, 2);
  const torch::Tensor rows = generated_rows(g, *e.features, n, s.seed + 777, shards);
  g->train(was_training);
  const int64_t d = rows.size(1) - 2;
  const double hits = (rows.select(1, d) == rows.select(1, d + 1)).sum().item<double>();
  RunningStats stats;
  stats.add(rows.slice(1, 0, d));
  const FeatureStats fake = stats.finish();
  const double fid = frechet_distance(fake.mu, fake.sigma, e.real.mu, e.real.sigma).distance;
  return {{"class_consistency", hits / static_cast<double>(rows.size(0))}, {"fid_classifier", fid}};
}

}  // namespace hamgan
