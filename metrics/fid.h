#pragma once
// FID, IS and KID end to end: inputs are statistics files (.npz), data sets or
// generator checkpoints, as pytorch-fid takes two paths (docs/metrics.md, "Commands").
#include <torch/torch.h>

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "metrics/bootstrap.h"
#include "metrics/features.h"
#include "metrics/frechet.h"
#include "metrics/image_source.h"
#include "metrics/intra_class.h"
#include "metrics/label_mode.h"
#include "metrics/prdc.h"
#include "metrics/scores.h"
#include "metrics/stats.h"

namespace hamgan {


enum class InputKind { stats, dataset, checkpoint };
// .npz → stats; a .pt file or a directory with checkpoints/ → checkpoint; else a data set.
InputKind classify_input(const std::string& path);

struct SampleOptions {
  int64_t n = 50000;      // images per data set / generator (0: a whole data set)
  int64_t batch = 0;      // images per feature-extractor call; 0: what the device suits (suited_batch)
  uint64_t seed = 0;      // generator noise and data subset draw
  int64_t standing_stats = 16;  // generators: batches for G's BN statistics (gan/sample/standing_stats.h); 0 = stored
  DatasetSpec data;       // how data-set inputs are opened (split, size, channels)
  LabelMode labels = LabelMode::balanced;  // generators: the classes asked for (metrics/label_mode.h)
  std::string label_data; // --labels dataset: the data set whose class frequencies are drawn
  std::string latents;    // generators: z and labels from this .npz instead of the seed (labels stamped "file")
};

// Images per feature-extractor batch when --batch is 0: 250 on a GPU (the
// Inception, DINOv2 ViT-L and generator fit with room to spare), 50 on a CPU.
int64_t suited_batch(torch::Device device);

struct SideFeatures {
  FeatureStats stats;
  torch::Tensor features;  // (N, D) float32 CPU, kept only for KID, PRDC, intra-class FID, the bootstrap
  torch::Tensor logits;    // (N, K) float32 CPU, kept only when IS needs it
  torch::Tensor labels;    // (N) int64 CPU, kept only for intra-class FID
  // stats.mu_s / sigma_s: sFID's, when the extractor gives spatial features
  std::string description;
  int64_t image_size = 0;      // side of the images (H; W when they differ is refused)
  std::string images_sha256;   // of the uint8 images in order, when asked
};

// Streams every image of `source` through `extractor` in batches, accumulating
// float64 statistics (and keeping features/logits/class labels only when asked;
// keep_labels needs a labelled source).
SideFeatures extract_features(ImageSource& source, FeatureExtractor& extractor, int64_t batch,
                              bool keep_features = false, bool keep_logits = false, const std::string& label = "features",
                              bool hash_images = false, bool keep_labels = false);

// Opens a generator-checkpoint input (n, seed and standing_stats from `options`).
// Generators live above metrics, so the caller supplies it (gan/sample/checkpoint_source.h);
// an empty one refuses checkpoint inputs.
using CheckpointOpener =
    std::function<std::unique_ptr<ImageSource>(const std::string& path, const SampleOptions& options)>;

// Opens a data-set input, or a checkpoint input through `open_checkpoint`.
std::unique_ptr<ImageSource> open_image_source(const std::string& path, const SampleOptions& options,
                                               const CheckpointOpener& open_checkpoint);

// The stamp of one computed side: the extractor's protocol plus where the images
// came from (a generator's label protocol when `generated`: sampling.labels, or
// "file" when z and labels came from sampling.latents).
StatsProtocol side_protocol(StatsProtocol extractor, const SideFeatures& side, bool generated,
                            const SampleOptions& sampling);
// With `--features classifier:FILE`, ConfigError when the classifier does not fit
// the images of the input at `path` (channels, classes: metrics/classifier_fit.h);
// `command` prefixes the line. Nothing for other extractors.
void check_classifier_input(const FeatureOptions& features, const ImageSource& source, const std::string& path,
                            const std::string& command);
// --batch, or with 0 what the extractor's device suits.
int64_t feature_batch(const SampleOptions& sampling, const FeatureExtractor& extractor);
// A warning on stderr when n ≤ dim: the covariance is then rank-deficient.
void warn_few_samples(int64_t n, int64_t dim, const std::string& what);
// A metric as printed: 10 significant digits.
std::string format_metric(double value);

// The extractor's part of a protocol stamp (identity, weights and their SHA-256,
// preprocessing, feature size) for the extractor `options` made; hashes the weights.
StatsProtocol extractor_protocol(const FeatureOptions& options, const FeatureExtractor& extractor);

struct FidConfig {
  std::string a, b;            // two inputs (stats .npz, data set, generator checkpoint)
  FeatureOptions features;     // extractor and preprocessing
  SampleOptions sampling;
  FrechetOptions frechet;
  bool inception_score = false;  // print IS of each image input
  int64_t is_splits = 10;
  bool kid = false;              // print KID (needs two image inputs)
  KidOptions kid_options;
  bool allow_protocol_mismatch = false;  // compare statistics made under different protocols (with a warning)
  bool intra_class = false;      // per-class FID (class labels on both sides)
  int64_t intra_class_worst = 5; // classes named on the printed line
  bool prdc = false;             // precision, recall, density, coverage (two image inputs)
  int64_t prdc_k = 3;
  int64_t bootstrap = 0;         // resamples of the generated side for a 95% interval; 0 = off
  uint64_t bootstrap_seed = 0;
  int64_t repeats = 1;           // a generator side: FID on this many disjoint seed ranges of n images
};

struct FidReport {
  FrechetResult frechet;
  int64_t n_a = 0, n_b = 0;
  std::optional<MeanStd> is_a, is_b, kid;
  std::string extractor;
  int generated = 0;  // 0 = A, 1 = B: the side PRDC and the bootstrap take as generated
  std::optional<IntraClassFid> intra_class;
  std::optional<PrdcResult> prdc;
  std::optional<BootstrapInterval> bootstrap;
  std::optional<double> sfid;
  std::vector<double> repeat_fids;  // one per seed range with --repeats > 1
};

// The side PRDC and the bootstrap take as generated (0 = A, 1 = B): the only
// generator checkpoint, else the only image input, else A.
int generated_side(const FidConfig& config);
// Refuses intra-class FID, PRDC or bootstrap requests that the inputs cannot serve
// (statistics files; unlabelled images, checked for the non-null sources), before
// any features are computed.
void check_sample_metric_inputs(const FidConfig& config, const ImageSource* const sources[2]);
// Whether side i's features must be kept (for KID and those metrics).
bool keeps_features(const FidConfig& config, int side);
// Computes the requested ones from the kept features on `device`, prints their
// lines and fills the report (metrics/fid_sample_metrics.cpp).
void add_sample_metrics(const FidConfig& config, const SideFeatures side[2], torch::Device device, FidReport& report,
                        std::ostream& out);

// Computes and prints the report ("FID: <value>" with 10 significant digits).
FidReport run_fid(const FidConfig& config, std::ostream& out, const CheckpointOpener& open_checkpoint);

struct FidStatsConfig {
  std::string source;          // data set or generator checkpoint
  std::string out;             // .npz to write
  FeatureOptions features;
  SampleOptions sampling;
  bool compressed = true;      // np.savez_compressed-style deflate
};
FeatureStats run_fid_stats(const FidStatsConfig& config, std::ostream& out, const CheckpointOpener& open_checkpoint);

struct FidBenchConfig {
  FeatureOptions features;     // inception weights (random if none) and device
  std::string classifier;      // classifier file; empty = an untrained one
  int64_t images = 64;         // images timed per extractor (after one warm-up batch)
  int64_t batch = 32;
  int64_t size = 32;           // input side of the synthetic uint8 images
};
void run_fid_bench(const FidBenchConfig& config, std::ostream& out);

// Ten million images: 200 times FID's 50,000 (EDM reports the best of three such ranges).
constexpr int64_t kMaxGeneratedImages = 10000000;
// Checked before any weights load (metrics/sample_checks.cpp): n images per seed range times
// `repeats` ranges from one generator at most kMaxGeneratedImages; --label_data only with --labels dataset.
void check_generated_count(int64_t n, int64_t repeats);
void check_label_data_used(const SampleOptions& s);

}  // namespace hamgan
