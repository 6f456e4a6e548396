#pragma once
// `hamgan bench fid`: the whole FID pipeline of a 50k-sample evaluation, timed
// per stage: sampling a class-conditional generator, Inception features,
// streaming statistics and the Fréchet distance against reference statistics.
// Generators live above metrics, so this end-to-end run sits here; the
// extraction-only throughput stays in metrics (run_fid_bench in metrics/fid.h).
#include <iosfwd>
#include <string>

#include "gan/model/model_config.h"
#include "metrics/features.h"

namespace hamgan {

struct FidPipelineBenchConfig {
  ModelConfig model;           // G built with random weights from this, unless `checkpoint` is set
  std::string checkpoint;      // trained G (checkpoint file or run directory; EMA weights, stored BN statistics)
  FeatureOptions features;     // Inception weights (random unless given), resize mode, device; spec
                               // "classifier" (no file): an untrained classifier, for quick checks
  std::string reference;       // reference statistics .npz; empty = synthetic statistics of the feature size
  int64_t n = 50000;           // images sampled and scored
  int64_t batch = 64;          // images per generator and extractor call
  uint64_t seed = 0;           // z, random weights and synthetic reference
  int64_t threads = 0;         // CPU threads (0: LibTorch's default)
  std::string json;            // write the result here as JSON when set
};

// The four timed stages, in pipeline order.
enum FidStage : size_t { kSampling, kFeatures, kStatistics, kFrechet, kFidStageCount };
const char* fid_stage_name(size_t stage);  // "sampling", "features", "statistics", "frechet"

struct FidPipelineBenchResult {
  double stage_seconds[kFidStageCount] = {};
  double total_seconds = 0;    // sum of the stages
  double wall_seconds = 0;     // first batch to the distance, as the host saw it (adds loop overhead)
  double setup_seconds = 0;    // building/loading networks, reference, one warm-up batch; not in the total
  double fid = 0;              // meaningless with random weights; printed so the work cannot be skipped
  int64_t n = 0, batch = 0, threads = 0;
  std::string device, device_name, torch_version, generator, features, reference;
};

// Runs the pipeline, prints the per-stage table (seconds, share, images/s) to `out`
// and a progress bar to stderr, writes config.json when set.
FidPipelineBenchResult run_fid_pipeline_bench(const FidPipelineBenchConfig& config, std::ostream& out);

// The JSON object written for --json (stable key order).
std::string fid_pipeline_bench_json(const FidPipelineBenchResult& result);

}  // namespace hamgan
