// What `hamgan fid` and `fid-stats` read: which kind each input is, how it is
// opened, and the extractor's part of the protocol stamp (declared in metrics/fid.h).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "core/build_info.h"
#include "core/errors.h"
#include "core/run_paths.h"
#include "core/sha256.h"
#include "metrics/classifier_fit.h"
#include "metrics/exact_arithmetic.h"
#include "metrics/fid.h"

namespace hamgan {
namespace fs = std::filesystem;

namespace {

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string hamgan_version_text() {
  return std::string("0.1.0 (revision ") + build_git_revision() + (build_git_dirty() ? ", modified" : "") + ")";
}

}  // namespace

InputKind classify_input(const std::string& path) {
  if (has_suffix(path, ".npz")) return InputKind::stats;
  if (has_suffix(path, ".pt")) return InputKind::checkpoint;
  if (fs::is_directory(path) && fs::is_directory(RunPaths(path).checkpoints())) return InputKind::checkpoint;
  return InputKind::dataset;
}

int64_t suited_batch(torch::Device device) { return device.is_cuda() ? 250 : 50; }

std::unique_ptr<ImageSource> open_image_source(const std::string& path, const SampleOptions& options,
                                               const CheckpointOpener& open_checkpoint) {
  if (options.n < 0) throw ConfigError("--n must be ≥ 0");
  if (classify_input(path) == InputKind::checkpoint) {
    if (options.n == 0) throw ConfigError("--n 0 (whole data set) is meaningless for a generator checkpoint " + path);
    if (!open_checkpoint) throw ConfigError(path + " is a generator checkpoint, which this command cannot sample; use a data set or .npz");
    return open_checkpoint(path, options);
  }
  DatasetSpec spec = options.data;
  spec.path = path;
  return make_dataset_source(open_dataset(spec), options.n, options.seed);
}

StatsProtocol extractor_protocol(const FeatureOptions& o, const FeatureExtractor& fx) {
  StatsProtocol p;
  const bool classifier = o.spec.rfind("classifier:", 0) == 0, dinov2 = o.spec.rfind("dinov2:", 0) == 0;
  p.extractor = classifier ? "classifier" : dinov2 ? "dinov2" : "inception";
  p.weights = classifier ? o.spec.substr(11) : dinov2 ? o.spec.substr(7) : resolve_inception_path(o);
  p.weights_sha256 = p.weights.empty() ? "" : sha256_file(p.weights);  // empty: random benchmark weights
  p.preprocessing = classifier ? "classifier input" : dinov2 ? to_string(o.dinov2_resize) : to_string(o.resize);
  p.feature_dim = fx.dim();
  if (o.sfid && p.extractor == "inception") p.sfid_layer = to_string(o.sfid_layer);
  p.arithmetic = kExactArithmetic;
  p.hamgan_version = hamgan_version_text();
  return p;
}

StatsProtocol side_protocol(StatsProtocol p, const SideFeatures& side, bool generated, const SampleOptions& sampling) {
  p.image_size = side.image_size;
  p.n = side.stats.n;
  p.source = side.description;
  p.source_sha256 = side.images_sha256;
  // Inputs another program drew are named apart, so their statistics are never taken for a seed's.
  p.labels = !generated ? "" : sampling.latents.empty() ? to_string(sampling.labels) : "file";
  return p;
}

void check_classifier_input(const FeatureOptions& o, const ImageSource& source, const std::string& path,
                            const std::string& command) {
  if (o.spec.rfind("classifier:", 0) != 0) return;
  const std::string file = o.spec.substr(11);
  const ClassifierConfig classifier = load_classifier(file)->config();
  const bool generator = classify_input(path) == InputKind::checkpoint;
  JudgedImages images;
  images.command = command;
  images.what = path + (generator ? " makes" : " holds");
  images.channels = source.channels();
  images.num_classes = source.num_classes();
  images.dataset = generator ? "" : path;
  images.image_size = classifier.image_size;
  images.use = "--features classifier:FILE";
  if (!generator && images.channels == 3 && classifier.channels == 1)  // image folders read RGB unless told
    images.alternative = "if these are grey images stored as RGB files, read them as grey with --channels 1";
  check_classifier_fits(file, classifier, images);
}

int64_t feature_batch(const SampleOptions& s, const FeatureExtractor& fx) {
  return s.batch > 0 ? s.batch : suited_batch(fx.device());
}

void warn_few_samples(int64_t n, int64_t dim, const std::string& what) {
  // A d-dimensional covariance from n <= d samples has rank < d: the Fréchet
  // distance then reflects the sample count as much as the images.
  if (n > 0 && n <= dim)
    std::cerr << "hamgan: warning: " << what << " has " << n << " samples for " << dim
              << "-d features: the covariance is rank-deficient and FID is unreliable (use well over " << dim
              << " samples; 50,000 for Inception FID in papers)\n";
}

std::string format_metric(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace hamgan
