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
#include "metrics/exact_arithmetic.h"
#include "metrics/fid.h"
#include "metrics/image_source.h"

namespace hamgan {
namespace {

// Column blocks of one generated image's row, gathered across ranks in one
// collective; a block is empty (width 0) when its extractor is not open.
struct RowLayout {
  enum Block { kClsFeatures, kClsPrediction, kIncFeatures, kIncLogits, kIncSpatial, kDinov2, kAskedClass, kBlocks };
  int64_t width_of[kBlocks] = {};
  int64_t begin(Block b) const {
    int64_t at = 0;
    for (int i = 0; i < b; ++i) at += width_of[i];
    return at;
  }
  int64_t width() const { return begin(kBlocks); }
  torch::Tensor view(const torch::Tensor& rows, Block b) const { return rows.slice(1, begin(b), begin(b) + width_of[b]); }
};

RowLayout row_layout(const EvalExtractors& e) {
  RowLayout l;
  if (e.classifier_features) l.width_of[RowLayout::kClsFeatures] = e.classifier_features->dim();
  if (e.classifier_features) l.width_of[RowLayout::kClsPrediction] = 1;
  if (e.inception) l.width_of[RowLayout::kIncFeatures] = e.inception->dim();
  if (e.inception) l.width_of[RowLayout::kIncLogits] = e.inception_logits;
  if (e.inception_spatial) l.width_of[RowLayout::kIncSpatial] = kSfidDim;
  if (e.dinov2) l.width_of[RowLayout::kDinov2] = e.dinov2->dim();
  l.width_of[RowLayout::kAskedClass] = 1;
  return l;
}

// One batch's row blocks, computed where the images are: generator output,
// quantisation and features stay on the device (no host round trip per batch).
torch::Tensor batch_rows(const torch::Tensor& images, const torch::Tensor& asked, const EvalExtractors& e) {
  std::vector<torch::Tensor> cols;
  auto f32 = [&](const torch::Tensor& t) { return t.to(images.device(), torch::kFloat32); };
  if (e.classifier_features) {
    const FeatureBatch fb = e.classifier_features->extract(images);
    cols.push_back(f32(fb.features));
    cols.push_back(f32(fb.logits.argmax(1)).unsqueeze(1));
  }
  if (e.inception) {
    const FeatureBatch fb = e.inception->extract(images);
    cols.push_back(f32(fb.features));
    cols.push_back(f32(fb.logits));
    if (e.inception_spatial) cols.push_back(f32(fb.spatial));
  }
  if (e.dinov2) cols.push_back(f32(e.dinov2->extract(images).features));
  cols.push_back(f32(asked).unsqueeze(1));
  return torch::cat(cols, 1);
}

// This rank's share of n samples (fixed z and labels per seed, quantised like
// saved samples) as rows of `layout`, padded to an equal share per rank
// (padding rows ask for class -1), then every rank's rows, on G's device.
torch::Tensor generated_rows(Generator& g, const EvalExtractors& e, const RowLayout& layout, int64_t n, uint64_t seed,
                             const LabelDraw& labels, const EvalShards& shards) {
  torch::NoGradGuard no_grad;
  ScopedRngRestore keep_rng;  // the NMF's random bases follow the seed; training's stream is untouched
  const FixedNoise noise(n, g->config().z_dim, g->config().num_classes, seed, 0.0, 0, &labels);
  const auto device = g->parameters().front().device();
  const int64_t batch = suited_batch(device);
  const int64_t share = (n + shards.world - 1) / shards.world;
  const int64_t from = std::min(n, shards.rank * share), to = std::min(n, from + share);
  const bool was_training = g->is_training();
  g->eval();
  ProgressEnabledScope bar_on_rank0(ProgressBar::enabled() && shards.rank == 0);
  ProgressBar bar("evaluate", (to - from) * shards.world, "img");
  torch::Tensor padded = torch::full({share, layout.width()}, -1.0, torch::TensorOptions(device).dtype(torch::kFloat32));
  for (int64_t i = from; i < to; i += batch) {
    throw_if_stop_requested("evaluation");
    const NoiseBatch b = noise.slice(i, std::min(batch, to - i));
    const torch::Tensor images = quantize_images(generate_on_device(g, b.z, b.labels));
    padded.slice(0, i - from, i - from + b.z.size(0)).copy_(batch_rows(images, b.labels, e));
    bar.advance(b.z.size(0) * shards.world);
  }
  bar.finish();
  g->train(was_training);
  if (!shards.gather) return padded.slice(0, 0, to - from);
  const torch::Tensor all = shards.gather(padded);
  return all.index({layout.view(all, RowLayout::kAskedClass).squeeze(1) >= 0});
}

// The gathered rows as the named columns the metrics read (views, no copies).
GeneratedSamples as_samples(const torch::Tensor& rows, const RowLayout& l) {
  GeneratedSamples s;
  s.count = rows.size(0);
  auto block = [&](RowLayout::Block b) { return l.width_of[b] > 0 ? l.view(rows, b) : torch::Tensor(); };
  s.classifier_features = block(RowLayout::kClsFeatures);
  if (l.width_of[RowLayout::kClsPrediction] > 0) s.classifier_predictions = block(RowLayout::kClsPrediction).squeeze(1);
  s.inception_features = block(RowLayout::kIncFeatures);
  s.inception_logits = block(RowLayout::kIncLogits);
  s.inception_spatial = block(RowLayout::kIncSpatial);
  s.dinov2_features = block(RowLayout::kDinov2);
  s.requested_classes = block(RowLayout::kAskedClass).squeeze(1);
  return s;
}

// The classes every evaluation asks for; `dataset` counts the training split's labels once.
LabelDraw evaluation_labels(const EvalSettings& s) {
  DatasetSpec train;
  train.path = s.dataset;
  train.split = "train";
  train.size = s.resolution;
  train.channels = s.image_channels;
  return make_label_draw(s.labels, train, "train: eval_labels");
}

// Opening may train the classifier: the run's random streams do not depend on whether its file was ready.
EvalExtractors open_keeping_rng(const EvalSettings& s, torch::Device device) {
  ScopedRngRestore keep_rng;
  return open_eval_extractors(s, device);
}

}  // namespace

Evaluator::Evaluator(EvalSettings settings, torch::Device device)
    : settings_(std::move(settings)),
      extractors_(open_keeping_rng(settings_, device)),
      labels_(evaluation_labels(settings_)) {}

const EvalSettings& Evaluator::settings() const { return settings_; }

EvalResult Evaluator::evaluate(Generator& g, const EvalShards& shards, int64_t sample_count) {
  const EvalSettings& s = settings_;
  if (s.metrics.empty()) return {};
  ExactArithmeticScope exact;  // G and the extractors in fp32 whatever the run's math mode (metrics/exact_arithmetic.h)
  const RowLayout layout = row_layout(extractors_);
  // Standing statistics on the weights being evaluated; training carries on with the stored buffers.
  const bool was_training = g->is_training();
  BufferSnapshot keep_buffers(*g);
  accumulate_standing_stats(g, s.standing_stats, kStandingBatchSize,
                            derived_seed(s.seed, SeedPurpose::kEvalStandingStats));
  // The same z for every evaluation of a run, so the curve shows the generator changing, not the noise.
  const int64_t n = std::max<int64_t>(sample_count > 0 ? sample_count : s.n, 2);
  const torch::Tensor rows =
      generated_rows(g, extractors_, layout, n, derived_seed(s.seed, SeedPurpose::kEvalNoise), labels_, shards);
  g->train(was_training);

  // The metrics are computed once, on rank 0, and their values shared with the other ranks,
  // with rank 0's word on a stop after them: every rank abandons the evaluation together.
  EvalResult result;
  const int64_t metrics = static_cast<int64_t>(s.metrics.size());
  torch::Tensor values = torch::zeros({metrics + 1}, torch::kFloat64);
  if (shards.rank == 0) {
    try {
      const GeneratedSamples samples = as_samples(rows.to(torch::kCPU), layout);  // the one host copy
      for (int64_t i = 0; i < metrics; ++i) {
        throw_if_stop_requested("evaluation");
        const MetricValue v = find_eval_metric(s.metrics[i])->compute(samples, extractors_);
        values[i] = v.value;
        result.protocol += (result.protocol.empty() ? "" : "; ") + s.metrics[i] + ": " + v.protocol;
      }
      throw_if_stop_requested("evaluation");  // a stop while the last metric was computed abandons it too
    } catch (const Interrupted&) {
      values[metrics] = 1;
    }
  }
  if (shards.share) values = shards.share(values);
  // Nothing of an abandoned evaluation is returned: no partial row, no best checkpoint from it.
  if (values[metrics].item<double>() != 0) throw Interrupted("evaluation: stopped by request");
  for (int64_t i = 0; i < metrics; ++i) result.values.emplace_back(s.metrics[i], values[i].item<double>());
  return result;
}

std::string Evaluator::reference_note() const {
  const bool classifier_fid =
      std::find(settings_.metrics.begin(), settings_.metrics.end(), "fid_classifier") != settings_.metrics.end();
  return classifier_fid ? "fid_classifier against " + extractors_.classifier_reference : "";
}

}  // namespace hamgan
