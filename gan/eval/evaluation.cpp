#include "gan/eval/evaluation.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include "core/errors.h"
#include "core/progress.h"
#include "core/stop_signal.h"
#include "gan/sample/noise.h"
#include "gan/sample/sampler.h"
#include "gan/sample/standing_stats.h"
#include "metrics/classifier_training.h"
#include "metrics/features.h"
#include "metrics/fid.h"
#include "metrics/frechet.h"
#include "metrics/image_source.h"
#include "metrics/scores.h"
#include "metrics/stats.h"
#include "core/seeds.h"

namespace hamgan {

const std::vector<std::string>& eval_metric_names() {
  static const std::vector<std::string> names = {"class_consistency", "fid_classifier", "fid_inception", "is"};
  return names;
}
bool higher_is_better(const std::string& m) { return m == "class_consistency" || m == "is"; }
bool uses_classifier(const std::string& m) { return m == "class_consistency" || m == "fid_classifier"; }
bool uses_inception(const std::string& m) { return m == "fid_inception" || m == "is"; }

namespace {

constexpr int64_t kBatch = 250;
constexpr int64_t kRealImages = 10000;  // the whole Fashion-MNIST test split
constexpr int64_t kIsSplits = 10;       // the Inception Score's customary splits

bool wants(const EvalSettings& s, bool (*kind)(const std::string&)) {
  return std::any_of(s.metrics.begin(), s.metrics.end(), kind);
}

// What evaluation keeps across calls within one process: the extractors and
// the real images' statistics for each.
struct Evaluator {
  FeatureClassifier classifier{nullptr};
  std::unique_ptr<FeatureExtractor> classifier_features, inception;
  FeatureStats classifier_real, inception_real;
  std::string classifier_protocol, inception_protocol;  // weights and preprocessing
  std::string inception_reference;                      // ", N real (F)"
  int64_t inception_logits = 0;                         // width of the Inception's logits
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

// The Inception, and the reference statistics checked against the protocol the
// generated side will have: same weights, preprocessing and image size.
void open_inception(Evaluator& e, const EvalSettings& s, torch::Device device) {
  FeatureOptions o;
  o.inception = s.inception;
  o.device = device.str();
  e.inception = make_feature_extractor(o);  // no weights: one line naming the file to get
  StatsProtocol ours = extractor_protocol(o, *e.inception);
  ours.image_size = s.resolution;
  e.inception_protocol = protocol_summary(ours);
  e.inception_logits =
      e.inception->extract(torch::zeros({1, s.image_channels, s.resolution, s.resolution}, torch::kUInt8)).logits.size(1);
  if (!wants(s, [](const std::string& m) { return m == "fid_inception"; })) return;
  const std::string make = "make it with `hamgan fid-stats DATA --inception " + ours.weights + " --size " +
                           std::to_string(s.resolution) + " --out " + s.reference + "`";
  if (s.reference.empty())
    throw ConfigError("train: fid_inception needs eval_reference, the Inception statistics of the real images; " + make);
  e.inception_real = load_stats(s.reference);
  const StatsProtocol& theirs = e.inception_real.protocol;
  if (e.inception_real.mu.size(0) != ours.feature_dim)
    throw ConfigError("train: eval_reference " + s.reference + " has " + std::to_string(e.inception_real.mu.size(0)) +
                      "-d statistics, the Inception gives " + std::to_string(ours.feature_dim) + "-d features; " + make);
  if (!theirs.stamped()) {
    std::cerr << "train: note: eval_reference " << s.reference
              << " carries no protocol stamp (made by another tool); its FIDs compare only if it used the same "
                 "Inception weights, resize and image size\n";
  } else if (const std::string mismatch = protocol_mismatch(theirs, ours); !mismatch.empty()) {
    throw ConfigError("train: eval_reference " + s.reference + " was made under another protocol than this run's " +
                      "evaluation (" + mismatch + "); " + make);
  }
  e.inception_reference = ", " + std::to_string(e.inception_real.n) + " real (" + s.reference + ")";
}

// Loaded (or built) once per process and kept for later evaluations; the real
// statistics depend on the data and its geometry as well as the extractor.
Evaluator& evaluator_for(const EvalSettings& s, torch::Device device) {
  static std::map<std::string, Evaluator> cache;
  std::string key = s.classifier + "|" + s.dataset + "|" + s.inception + "|" + s.reference + "|" +
                    std::to_string(s.resolution) + "|" + std::to_string(s.image_channels) + "|" + device.str();
  for (const auto& m : s.metrics) key += "|" + m;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  Evaluator e;
  if (wants(s, uses_classifier)) {
    e.classifier = ensure_classifier(s.classifier, device);
    e.classifier_features = make_classifier_features(e.classifier, device, "classifier:" + s.classifier);
    e.classifier_real = real_feature_stats(*e.classifier_features, s);
    FeatureOptions o;
    o.spec = "classifier:" + s.classifier;
    StatsProtocol p = extractor_protocol(o, *e.classifier_features);
    p.image_size = s.resolution;
    e.classifier_protocol = protocol_summary(p) + ", " + std::to_string(e.classifier_real.n) + " real (" +
                            s.dataset + " test)";
  }
  if (wants(s, uses_inception)) open_inception(e, s, device);
  return cache.emplace(key, std::move(e)).first->second;
}

// Column blocks of one generated image's row, gathered across ranks in one collective.
struct RowLayout {
  int64_t cls_dim = 0, inc_dim = 0, inc_logits = 0;
  int64_t cls_pred() const { return cls_dim; }
  int64_t inc_begin() const { return cls_dim + (cls_dim > 0 ? 1 : 0); }
  int64_t logits_begin() const { return inc_begin() + inc_dim; }
  int64_t asked() const { return logits_begin() + inc_logits; }
  int64_t width() const { return asked() + 1; }
};

// This rank's share of n class-balanced samples (fixed z per seed, quantised
// like saved samples) as rows of `layout`, padded to an equal share per rank
// (padding rows ask for class -1), then every rank's rows.
torch::Tensor generated_rows(Generator& g, Evaluator& e, const RowLayout& layout, int64_t n, uint64_t seed,
                             const EvalShards& shards) {
  torch::NoGradGuard no_grad;
  ScopedRngRestore keep_rng;  // the NMF's random bases follow the seed; training's stream is untouched
  const FixedNoise noise(n, g->config().z_dim, g->config().num_classes, seed);
  const int64_t share = (n + shards.world - 1) / shards.world;
  const int64_t from = std::min(n, shards.rank * share), to = std::min(n, from + share);
  const bool was_training = g->is_training();
  g->eval();
  ProgressEnabledScope bar_on_rank0(ProgressBar::enabled() && shards.rank == 0);
  ProgressBar bar("evaluate", (to - from) * shards.world, "img");
  std::vector<torch::Tensor> rows;
  for (int64_t i = from; i < to; i += kBatch) {
    throw_if_stop_requested("evaluation");
    const NoiseBatch b = noise.slice(i, std::min(kBatch, to - i));
    const torch::Tensor images = quantize_images(generate(g, b.z, b.labels, kBatch));
    std::vector<torch::Tensor> cols;
    if (e.classifier_features) {
      const FeatureBatch fb = e.classifier_features->extract(images);
      cols.push_back(fb.features.to(torch::kCPU, torch::kFloat32));
      cols.push_back(fb.logits.argmax(1).to(torch::kCPU, torch::kFloat32).unsqueeze(1));
    }
    if (e.inception) {
      const FeatureBatch fb = e.inception->extract(images);
      cols.push_back(fb.features.to(torch::kCPU, torch::kFloat32));
      cols.push_back(fb.logits.to(torch::kCPU, torch::kFloat32));
    }
    cols.push_back(b.labels.to(torch::kFloat32).unsqueeze(1));
    rows.push_back(torch::cat(cols, 1));
    bar.advance(b.z.size(0) * shards.world);
  }
  bar.finish();
  g->train(was_training);
  torch::Tensor mine = rows.empty() ? torch::empty({0, layout.width()}, torch::kFloat32) : torch::cat(rows);
  if (!shards.gather) return mine;
  torch::Tensor padded = torch::full({share, layout.width()}, -1.0, torch::kFloat32);
  padded.slice(0, 0, mine.size(0)).copy_(mine);
  const torch::Tensor all = shards.gather(padded);
  return all.index({all.select(1, layout.asked()) >= 0});
}

double fid_against(const torch::Tensor& features, const FeatureStats& real) {
  RunningStats stats;
  stats.add(features);
  const FeatureStats fake = stats.finish();
  return frechet_distance(fake.mu, fake.sigma, real.mu, real.sigma).distance;
}

}  // namespace

void prepare_evaluation(const EvalSettings& s, torch::Device device) {
  if (!s.metrics.empty()) evaluator_for(s, device);
}

EvalResult evaluate_during_training(Generator& g, const EvalSettings& s, const EvalShards& shards) {
  if (s.metrics.empty()) return {};
  Evaluator& e = evaluator_for(s, g->parameters().front().device());
  RowLayout layout;
  if (e.classifier_features) layout.cls_dim = e.classifier_features->dim();
  if (e.inception) {
    layout.inc_dim = e.inception->dim();
    layout.inc_logits = e.inception_logits;
  }
  // Standing statistics on the weights being evaluated; training carries on with the stored buffers.
  const bool was_training = g->is_training();
  BufferSnapshot keep_buffers(*g);
  accumulate_standing_stats(g, s.standing_stats, s.standing_batch_size, derived_seed(s.seed, SeedPurpose::kEvalStandingStats));
  // The same z for every evaluation of a run, so the curve shows the generator changing, not the noise.
  const int64_t n = std::max<int64_t>(s.n, 2);
  const torch::Tensor rows = generated_rows(g, e, layout, n, derived_seed(s.seed, SeedPurpose::kEvalNoise), shards);
  g->train(was_training);

  EvalResult result;
  const std::string samples = std::to_string(rows.size(0)) + " generated";
  for (const auto& m : s.metrics) {
    double v = 0;
    std::string protocol;
    if (m == "class_consistency") {
      v = (rows.select(1, layout.cls_pred()) == rows.select(1, layout.asked())).sum().item<double>() /
          static_cast<double>(rows.size(0));
      protocol = "classifier argmax over " + samples;
    } else if (m == "fid_classifier") {
      v = fid_against(rows.slice(1, 0, layout.cls_dim), e.classifier_real);
      protocol = e.classifier_protocol + " vs " + samples;
    } else if (m == "fid_inception") {
      v = fid_against(rows.slice(1, layout.inc_begin(), layout.logits_begin()), e.inception_real);
      protocol = e.inception_protocol + e.inception_reference + " vs " + samples;
    } else if (m == "is") {
      const int64_t splits = std::min<int64_t>(kIsSplits, rows.size(0));
      v = inception_score(rows.slice(1, layout.logits_begin(), layout.asked()), splits).mean;
      protocol = e.inception_protocol + ", " + std::to_string(splits) + " splits of " + samples;
    }
    result.values.emplace_back(m, v);
    result.protocol += (result.protocol.empty() ? "" : "; ") + m + ": " + protocol;
  }
  return result;
}

}  // namespace hamgan
