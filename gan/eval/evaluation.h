#pragma once
// Evaluation during training. One set of class-balanced EMA samples (the same z
// at every evaluation of a run) feeds every metric asked for:
//   class_consistency  fraction the Fashion-MNIST classifier assigns to the requested class
//   fid_classifier     FID on that classifier's features against the held-out real images
//   fid_inception      FID on the FID Inception's pool features against `reference`,
//                      statistics of the real set made by `hamgan fid-stats` (protocol-checked)
//   is                 Inception Score (10 splits) on the same Inception's bias-free logits
#include <functional>
#include <string>
#include <vector>

#include "gan/model/generator.h"
#include "gan/report/run_log.h"

namespace hamgan {

// The names eval_metrics accepts, and which way each improves.
const std::vector<std::string>& eval_metric_names();
bool higher_is_better(const std::string& metric);
bool uses_classifier(const std::string& metric);  // class_consistency, fid_classifier
bool uses_inception(const std::string& metric);   // fid_inception, is

// What evaluation needs to know about the run (the training loop fills it from its config).
struct EvalSettings {
  std::vector<std::string> metrics;  // empty: no evaluation
  std::string classifier;  // classifier file for the classifier metrics; built on demand if missing
  std::string dataset;     // real images for fid_classifier: its test split
  std::string inception;   // Inception weights ("" = $HAMGAN_INCEPTION)
  std::string reference;   // Inception statistics of the real images (.npz) for fid_inception
  int64_t resolution = 32, image_channels = 1;
  int64_t n = 1000;                 // generated images per evaluation (class-balanced)
  int64_t standing_stats = 16;      // batches for G's BN statistics; 0 = stored moving averages
  int64_t standing_batch_size = 64;
  uint64_t seed = 0;                // fixes z for every evaluation of a run
};

// Opens the extractors (training the classifier when it is missing) and reads or
// computes the real statistics now, so a bad file or a reference made under
// another protocol fails a run at its start rather than at its first
// evaluation; later evaluations with the same settings reuse them.
void prepare_evaluation(const EvalSettings& settings, torch::Device device);

// How a data-parallel job splits one evaluation: rank `rank` of `world`
// generates a contiguous share of the n samples (the same z as a single
// process would use for them), and `gather` returns every rank's rows
// concatenated in rank order (an all-gather; all ranks pass equal shapes).
struct EvalShards {
  int64_t rank = 0, world = 1;
  std::function<torch::Tensor(const torch::Tensor&)> gather;  // unset: a single process
};

struct EvalResult {
  MetricRow values;       // in the order of settings.metrics
  std::string protocol;   // how each metric was measured, for the log ("fid_inception: inception sha256 …; …")
  bool empty() const { return values.empty(); }
};

// Runs g in eval mode and puts its mode and buffers back afterwards. Every rank
// of a job calls it and gets the same result. Shows a progress bar.
EvalResult evaluate_during_training(Generator& g, const EvalSettings& settings, const EvalShards& shards = {});

}  // namespace hamgan
