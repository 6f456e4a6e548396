// FID / IS / KID pipeline (see fid.h).
#include "metrics/fid.h"

#include "core/build_info.h"
#include "core/sha256.h"
#include "metrics/protocol.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "core/device.h"
#include "core/errors.h"
#include "core/progress.h"
#include "core/run_paths.h"

namespace hamgan {
namespace fs = std::filesystem;

namespace {

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A d-dimensional covariance from n <= d samples has rank < d: the Fréchet
// distance then reflects the sample count as much as the images.
void warn_few_samples(int64_t n, int64_t dim, const std::string& what) {
  if (n > 0 && n <= dim)
    std::cerr << "hamgan: warning: " << what << " has " << n << " samples for " << dim
              << "-d features: the covariance is rank-deficient and FID is unreliable (use well over " << dim
              << " samples; 50,000 for Inception FID in papers)\n";
}

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

InputKind classify_input(const std::string& path) {
  if (has_suffix(path, ".npz")) return InputKind::stats;
  if (has_suffix(path, ".pt")) return InputKind::checkpoint;
  if (fs::is_directory(path) && fs::is_directory(RunPaths(path).checkpoints())) return InputKind::checkpoint;
  return InputKind::dataset;
}

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

namespace {

std::string hamgan_version_text() {
  return std::string("0.1.0 (revision ") + build_git_revision() + (build_git_dirty() ? ", modified" : "") + ")";
}

}  // namespace

StatsProtocol extractor_protocol(const FeatureOptions& o, const FeatureExtractor& fx) {
  StatsProtocol p;
  const bool classifier = o.spec.rfind("classifier:", 0) == 0;
  p.extractor = classifier ? "classifier" : "inception";
  p.weights = classifier ? o.spec.substr(11) : resolve_inception_path(o);
  p.weights_sha256 = p.weights.empty() ? "" : sha256_file(p.weights);  // empty: random benchmark weights
  p.preprocessing = classifier ? "classifier input" : to_string(o.resize);
  p.feature_dim = fx.dim();
  p.hamgan_version = hamgan_version_text();
  return p;
}

namespace {

StatsProtocol side_protocol(StatsProtocol p, const SideFeatures& side) {
  p.image_size = side.image_size;
  p.n = side.stats.n;
  p.source = side.description;
  p.source_sha256 = side.images_sha256;
  return p;
}

// Refuses (or, when allowed, warns about) statistics made under different
// protocols; true when it warned.
bool check_protocols(const StatsProtocol& a, const StatsProtocol& b, const FidConfig& c, std::ostream& out) {
  if (!a.stamped() || !b.stamped()) return false;
  const std::string mismatch = protocol_mismatch(a, b);
  if (mismatch.empty()) return false;
  if (!c.allow_protocol_mismatch)
    throw ConfigError("fid: " + c.a + " and " + c.b + " were made under different protocols: " + mismatch +
                      "; compare statistics made with the same weights, preprocessing and image size, or pass "
                      "--allow_protocol_mismatch");
  out << "warning: different protocols (" << mismatch << "); compared because of --allow_protocol_mismatch\n";
  return true;
}

}  // namespace

FidReport run_fid(const FidConfig& c, std::ostream& out, const CheckpointOpener& open_checkpoint) {
  const bool a_stats = classify_input(c.a) == InputKind::stats, b_stats = classify_input(c.b) == InputKind::stats;
  if (c.kid && (a_stats || b_stats))
    throw ConfigError("--kid needs image features on both sides; .npz statistics hold only mu and sigma");
  if (c.prdc_k < 1) throw ConfigError("--prdc_k must be ≥ 1");
  if (c.bootstrap < 0) throw ConfigError("--bootstrap must be ≥ 0");
  const ImageSource* const unopened[2] = {nullptr, nullptr};
  check_sample_metric_inputs(c, unopened);  // statistics inputs: before the extractor loads its weights
  std::unique_ptr<FeatureExtractor> extractor;
  StatsProtocol computed;  // the protocol of sides whose features are computed here (image size once computed)
  bool warned = false;
  if (!a_stats || !b_stats) {
    extractor = make_feature_extractor(c.features);
    out << "features: " << extractor->describe() << "\n";
    computed = extractor_protocol(c.features, *extractor);
  }
  FidReport report;
  SideFeatures side[2];
  const std::string* paths[2] = {&c.a, &c.b};
  // Both inputs are opened (and statistics checked) before any features are
  // computed: a bad B must not cost A's whole pass.
  std::unique_ptr<ImageSource> sources[2];
  for (int i = 0; i < 2; ++i) {
    const std::string& path = *paths[i];
    if (classify_input(path) == InputKind::stats) {
      side[i].stats = load_stats(path);
      side[i].description = path;
      if (extractor && side[i].stats.mu.size(0) != extractor->dim())
        throw DataError(path + ": statistics are " + std::to_string(side[i].stats.mu.size(0)) + "-d but " +
                        extractor->describe() + " gives " + std::to_string(extractor->dim()) + "-d features");
      if (!side[i].stats.protocol.stamped())
        out << "note: " << path << " carries no protocol stamp (statistics from another tool): its weights, "
            << "preprocessing and image size cannot be checked\n";
      if (extractor)  // before any features are computed: all but the image size is known
        warned |= check_protocols(i == 0 ? side[i].stats.protocol : computed, i == 0 ? computed : side[i].stats.protocol,
                                  c, out);
    } else {
      sources[i] = open_image_source(path, c.sampling, open_checkpoint);
    }
  }
  const ImageSource* const opened[2] = {sources[0].get(), sources[1].get()};
  check_sample_metric_inputs(c, opened);
  for (int i = 0; i < 2; ++i) {
    if (sources[i])
      side[i] = extract_features(*sources[i], *extractor, c.sampling.batch, keeps_features(c, i), c.inception_score,
                                 std::string(i == 0 ? "A" : "B") + " features", false, c.intra_class);
    out << (i == 0 ? "A: " : "B: ") << side[i].description
        << (side[i].stats.n > 0 ? " (n=" + std::to_string(side[i].stats.n) + ")" : std::string(" (n not recorded)"))
        << "\n";
    warn_few_samples(side[i].stats.n, side[i].stats.mu.size(0), *paths[i]);
  }
  StatsProtocol protocol[2];
  for (int i = 0; i < 2; ++i) protocol[i] = sources[i] ? side_protocol(computed, side[i]) : side[i].stats.protocol;
  if (!warned) check_protocols(protocol[0], protocol[1], c, out);
  report.n_a = side[0].stats.n;
  report.n_b = side[1].stats.n;
  if (extractor) report.extractor = extractor->describe();
  report.frechet = frechet_distance(side[0].stats.mu, side[0].stats.sigma, side[1].stats.mu, side[1].stats.sigma, c.frechet);
  if (report.frechet.singular)
    out << "note: a covariance is singular (fewer samples than dimensions or constant features); the symmetric "
           "square root handles it, imaginary residue " << fmt(report.frechet.imaginary) << "\n";
  out << "FID: " << fmt(report.frechet.distance) << "\n";
  const StatsProtocol& named = protocol[0].stamped() ? protocol[0] : protocol[1];
  if (named.stamped())
    out << "protocol: " << protocol_summary(named) << ", " << report.n_a << " vs " << report.n_b << " samples"
        << (protocol_mismatch(protocol[0], protocol[1]).empty() || !protocol[0].stamped() || !protocol[1].stamped()
                ? ""
                : " (B: " + protocol_summary(protocol[1]) + ")")
        << "\n";
  if (c.inception_score) {
    for (int i = 0; i < 2; ++i) {
      if (!side[i].logits.defined()) continue;
      auto is = inception_score(side[i].logits, c.is_splits);
      (i == 0 ? report.is_a : report.is_b) = is;
      out << "IS " << (i == 0 ? "A" : "B") << ": " << fmt(is.mean) << " ± " << fmt(is.std) << " (" << c.is_splits
          << " splits)\n";
    }
  }
  if (c.kid) {
    report.kid = kernel_inception_distance(side[0].features, side[1].features, c.kid_options);
    out << "KID: " << fmt(report.kid->mean) << " ± " << fmt(report.kid->std) << " (" << c.kid_options.subsets
        << " subsets of " << std::min({c.kid_options.subset_size, report.n_a, report.n_b}) << ")\n";
  }
  add_sample_metrics(c, side, extractor ? extractor->device() : torch::Device(torch::kCPU), report, out);
  return report;
}

FeatureStats run_fid_stats(const FidStatsConfig& c, std::ostream& out, const CheckpointOpener& open_checkpoint) {
  if (c.out.empty() || !has_suffix(c.out, ".npz")) throw ConfigError("--out must name an .npz file, got '" + c.out + "'");
  if (classify_input(c.source) == InputKind::stats) throw ConfigError(c.source + " is already a statistics file");
  auto extractor = make_feature_extractor(c.features);
  out << "features: " << extractor->describe() << "\n";
  auto source = open_image_source(c.source, c.sampling, open_checkpoint);
  const bool data_set = classify_input(c.source) == InputKind::dataset;  // generators are named by checkpoint and step
  auto side = extract_features(*source, *extractor, c.sampling.batch, false, false, "features", data_set);
  warn_few_samples(side.stats.n, side.stats.mu.size(0), c.source);
  side.stats.protocol = side_protocol(extractor_protocol(c.features, *extractor), side);
  save_stats(c.out, side.stats, c.compressed);
  out << "wrote " << c.out << ": mu " << side.stats.mu.size(0) << ", sigma " << side.stats.sigma.size(0) << "×"
      << side.stats.sigma.size(1) << " float64 from " << side.stats.n << " images of " << side.description << "\n";
  return side.stats;
}

void run_fid_bench(const FidBenchConfig& c, std::ostream& out) {
  if (c.images < 1 || c.batch < 1 || c.size < 8) throw ConfigError("bench fid: --images, --batch ≥ 1 and --size ≥ 8");
  auto time_extractor = [&](FeatureExtractor& fx) {
    auto images = torch::randint(0, 256, {c.batch, 3, c.size, c.size}, torch::kUInt8);
    fx.extract(images);  // warm-up (allocations, lazy init)
    synchronize(fx.device());
    auto t0 = std::chrono::steady_clock::now();
    int64_t done = 0;
    while (done < c.images) {
      auto f = fx.extract(images).features;
      synchronize(fx.device());
      done += c.batch;
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char rate[96];
    std::snprintf(rate, sizeof rate, " in %.2f s: %.1f images/s", s, done / s);
    out << "  " << fx.describe() << "\n  " << done << " images " << c.size << "×" << c.size << rate << " (batch " << c.batch << ", " << torch::get_num_threads()
        << " threads, " << fx.device() << ")\n";
  };
  FeatureOptions inc = c.features;
  inc.allow_random = true;
  out << "inception:\n";
  auto fx = make_feature_extractor(inc);
  time_extractor(*fx);
  out << "classifier:\n";
  std::unique_ptr<FeatureExtractor> cls;
  if (c.classifier.empty()) {
    cls = make_classifier_features(FeatureClassifier(ClassifierConfig{}), resolve_device(c.features.device),
                                   "(untrained, default architecture)");
  } else {
    FeatureOptions co = c.features;
    co.spec = "classifier:" + c.classifier;
    cls = make_feature_extractor(co);
  }
  time_extractor(*cls);
}

}  // namespace hamgan
