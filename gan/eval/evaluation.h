#pragma once
// Evaluation during training: class-consistency of the generator (fraction of
// class-balanced samples the Fashion-MNIST classifier assigns to the requested
// class) and FID on that classifier's features against the held-out real images.
#include <functional>
#include <string>

#include "gan/model/generator.h"
#include "gan/report/run_log.h"

namespace hamgan {

// What evaluation needs to know about the run (the training loop fills it from its config).
struct EvalSettings {
  std::string classifier;  // classifier file ("" = no evaluation); built on demand if missing
  std::string dataset;     // real images: its test split
  int64_t resolution = 32, image_channels = 1;
  int64_t n = 1000;                 // generated images per evaluation (class-balanced)
  int64_t standing_stats = 16;      // batches for G's BN statistics; 0 = stored moving averages
  int64_t standing_batch_size = 64;
  uint64_t seed = 0;                // fixes z for every evaluation of a run
};

// Opens (or, when missing, trains) the classifier and computes the real images'
// statistics now, so a bad file fails a run at its start rather than at its
// first evaluation; later evaluations with the same settings reuse them.
void prepare_evaluation(const EvalSettings& settings, torch::Device device);

// How a data-parallel job splits one evaluation: rank `rank` of `world`
// generates a contiguous share of the n samples (the same z as a single
// process would use for them), and `gather` returns every rank's rows
// concatenated in rank order (an all-gather; all ranks pass equal shapes).
struct EvalShards {
  int64_t rank = 0, world = 1;
  std::function<torch::Tensor(const torch::Tensor&)> gather;  // unset: a single process
};

// Empty when evaluation does not apply (no classifier). Runs g in eval mode and
// puts its mode and buffers back afterwards. One set of samples feeds both
// metrics. Every rank of a job calls it and gets the same row.
MetricRow evaluate_during_training(Generator& g, const EvalSettings& settings, const EvalShards& shards = {});

}  // namespace hamgan
