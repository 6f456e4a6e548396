#pragma once
// Evaluation during training. One set of EMA samples (the same z and labels,
// drawn by the run's label protocol, at every evaluation of a run) feeds every
// metric asked for, all in exact fp32 (metrics/exact_arithmetic.h); the metrics
// are the rows of gan/eval/eval_metrics.h:
//   class_consistency  fraction the Fashion-MNIST classifier assigns to the requested class
//   fid_classifier     FID on that classifier's features against the held-out real images
//   fid_inception      FID on the FID Inception's pool features against `reference`,
//                      statistics of the real set made by `hamgan fid-stats` (protocol-checked)
//   sfid               sFID on the same Inception's spatial features against `reference`'s mu_s, sigma_s
//   dinov2             FD_DINOv2 on a DINOv2 network's CLS embeddings against `dinov2_reference`
//   is                 Inception Score (10 splits) on the same Inception's bias-free logits
#include <functional>
#include <string>

#include "gan/eval/eval_metrics.h"
#include "gan/eval/eval_settings.h"
#include "gan/model/generator.h"
#include "gan/sample/label_draw.h"
#include "gan/report/run_log.h"

namespace hamgan {

// How a data-parallel job splits one evaluation: rank `rank` of `world`
// generates a contiguous share of the n samples (the same z as a single
// process would use for them), and `gather` returns every rank's rows
// concatenated in rank order (an all-gather; all ranks pass equal shapes).
struct EvalShards {
  int64_t rank = 0, world = 1;
  std::function<torch::Tensor(const torch::Tensor&)> gather;  // unset: a single process
  // Rank 0's tensor on every rank (a broadcast): the metrics are computed once, on rank 0.
  std::function<torch::Tensor(const torch::Tensor&)> share;
};

struct EvalResult {
  MetricRow values;       // in the order of settings.metrics, the same on every rank
  std::string protocol;   // rank 0: how each metric was measured, for the log ("fid_inception: inception sha256 …; …")
  bool empty() const { return values.empty(); }
};

// One run's evaluation: owns the extractors and the real statistics, so they
// live exactly as long as the run that opened them.
class Evaluator {
 public:
  // Opens the extractors (training the classifier when it is missing) and reads
  // or computes the real statistics now, so a bad file or a reference made
  // under another protocol fails a run at its start rather than at its first
  // evaluation. Leaves the global random streams as it found them.
  Evaluator(EvalSettings settings, torch::Device device);

  const EvalSettings& settings() const;

  // Runs g in eval mode and puts its mode and buffers back afterwards. Every rank
  // of a job calls it and gets the same values. Shows a progress bar. Empty
  // when settings().metrics is. `n` > 0 replaces settings().n for this evaluation
  // (a run's last one may use more samples).
  // A stop requested during it (core/stop_signal.h) abandons it with Interrupted,
  // on every rank together once the samples are gathered: no value of it is returned.
  EvalResult evaluate(Generator& g, const EvalShards& shards = {}, int64_t n = 0);

  // Which real images fid_classifier compares with ("" without that metric):
  // "fid_classifier against N real (DATA, test split)", or the training images
  // of a data set without a test split, against which it also rewards memorising them.
  std::string reference_note() const;

 private:
  EvalSettings settings_;
  EvalExtractors extractors_;
  LabelDraw labels_;  // the classes every evaluation asks for
};

}  // namespace hamgan
