#include "gan/eval/evaluation.h"

#include <algorithm>

#include "core/progress.h"
#include "core/rng.h"
#include "core/seeds.h"
#include "core/stop_signal.h"
#include "gan/eval/eval_extractors.h"
#include "gan/sample/noise.h"
#include "gan/sample/sampler.h"
#include "gan/sample/standing_stats.h"
#include "metrics/image_source.h"

namespace hamgan {
namespace {

constexpr int64_t kBatch = 250;

// Column blocks of one generated image's row, gathered across ranks in one collective.
struct RowLayout {
  int64_t cls_dim = 0, inc_dim = 0, inc_logits = 0;
  int64_t cls_pred() const { return cls_dim; }
  int64_t inc_begin() const { return cls_dim + (cls_dim > 0 ? 1 : 0); }
  int64_t logits_begin() const { return inc_begin() + inc_dim; }
  int64_t asked() const { return logits_begin() + inc_logits; }
  int64_t width() const { return asked() + 1; }
};

RowLayout row_layout(const EvalExtractors& e) {
  RowLayout layout;
  if (e.classifier_features) layout.cls_dim = e.classifier_features->dim();
  if (e.inception) {
    layout.inc_dim = e.inception->dim();
    layout.inc_logits = e.inception_logits;
  }
  return layout;
}

// This rank's share of n class-balanced samples (fixed z per seed, quantised
// like saved samples) as rows of `layout`, padded to an equal share per rank
// (padding rows ask for class -1), then every rank's rows.
torch::Tensor generated_rows(Generator& g, const EvalExtractors& e, const RowLayout& layout, int64_t n, uint64_t seed,
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

// The gathered rows as the named columns the metrics read (views, no copies).
GeneratedSamples as_samples(const torch::Tensor& rows, const RowLayout& layout, const EvalExtractors& e) {
  GeneratedSamples s;
  s.count = rows.size(0);
  if (e.classifier_features) {
    s.classifier_features = rows.slice(1, 0, layout.cls_dim);
    s.classifier_predictions = rows.select(1, layout.cls_pred());
  }
  if (e.inception) {
    s.inception_features = rows.slice(1, layout.inc_begin(), layout.logits_begin());
    s.inception_logits = rows.slice(1, layout.logits_begin(), layout.asked());
  }
  s.requested_classes = rows.select(1, layout.asked());
  return s;
}

// Opening may train the classifier: the run's random streams do not depend on whether its file was ready.
EvalExtractors open_keeping_rng(const EvalSettings& s, torch::Device device) {
  ScopedRngRestore keep_rng;
  return open_eval_extractors(s, device);
}

}  // namespace

Evaluator::Evaluator(EvalSettings settings, torch::Device device)
    : settings_(std::move(settings)), extractors_(open_keeping_rng(settings_, device)) {}

const EvalSettings& Evaluator::settings() const { return settings_; }

EvalResult Evaluator::evaluate(Generator& g, const EvalShards& shards, int64_t sample_count) {
  const EvalSettings& s = settings_;
  if (s.metrics.empty()) return {};
  const RowLayout layout = row_layout(extractors_);
  // Standing statistics on the weights being evaluated; training carries on with the stored buffers.
  const bool was_training = g->is_training();
  BufferSnapshot keep_buffers(*g);
  accumulate_standing_stats(g, s.standing_stats, s.standing_batch_size,
                            derived_seed(s.seed, SeedPurpose::kEvalStandingStats));
  // The same z for every evaluation of a run, so the curve shows the generator changing, not the noise.
  const int64_t n = std::max<int64_t>(sample_count > 0 ? sample_count : s.n, 2);
  const torch::Tensor rows =
      generated_rows(g, extractors_, layout, n, derived_seed(s.seed, SeedPurpose::kEvalNoise), shards);
  g->train(was_training);

  const GeneratedSamples samples = as_samples(rows, layout, extractors_);
  EvalResult result;
  for (const auto& m : s.metrics) {
    const MetricValue v = find_eval_metric(m)->compute(samples, extractors_);
    result.values.emplace_back(m, v.value);
    result.protocol += (result.protocol.empty() ? "" : "; ") + m + ": " + v.protocol;
  }
  return result;
}

}  // namespace hamgan
