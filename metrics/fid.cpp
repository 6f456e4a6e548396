// FID, sFID, IS and KID between two inputs (see fid.h); the inputs' kinds and
// the extractor's stamp are in fid_inputs.cpp, `fid-stats` in fid_stats_run.cpp,
// the features-based metrics in fid_sample_metrics.cpp.
#include "metrics/fid.h"

#include <cmath>
#include <iostream>

#include "core/errors.h"
#include "metrics/protocol.h"

namespace hamgan {

namespace {

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

void check_options(const FidConfig& c, bool a_stats, bool b_stats) {
  if (c.kid && (a_stats || b_stats))
    throw ConfigError("--kid needs image features on both sides; .npz statistics hold only mu and sigma");
  if (c.prdc_k < 1) throw ConfigError("--prdc_k must be ≥ 1");
  if (c.bootstrap < 0) throw ConfigError("--bootstrap must be ≥ 0");
  if (c.repeats < 1) throw ConfigError("--repeats must be ≥ 1");
  const bool a_gen = classify_input(c.a) == InputKind::checkpoint, b_gen = classify_input(c.b) == InputKind::checkpoint;
  if (c.repeats > 1 && a_gen == b_gen)
    throw ConfigError("--repeats " + std::to_string(c.repeats) + " needs exactly one generator checkpoint among " +
                      c.a + " and " + c.b + " (its seed ranges are repeated against the other input)");
  if (a_gen || b_gen) check_generated_count(c.sampling.n, c.repeats);
  check_label_data_used(c.sampling);
  if (!c.sampling.latents.empty() && !a_gen && !b_gen)
    throw ConfigError("--latents " + c.sampling.latents + " gives a generator's inputs, but neither " + c.a + " nor " +
                      c.b + " is a generator checkpoint; drop --latents");
  if (c.features.sfid && (c.features.spec.rfind("classifier:", 0) == 0 || c.features.spec.rfind("dinov2:", 0) == 0))
    throw ConfigError("--sfid needs the Inception (--features inception), not " + c.features.spec);
}

// A statistics input's sFID part, when --sfid asks for it.
void check_sfid_stats(const FeatureStats& s, const std::string& path) {
  if (!s.mu_s.defined() || !s.sigma_s.defined())
    throw ConfigError("fid: " + path + " has no sFID statistics (mu_s, sigma_s); make it with `hamgan fid-stats ... "
                      "--sfid` or drop --sfid");
}

// The generator side's seed ranges 1..k−1 against the other side (range 0 is the main result).
void add_repeats(const FidConfig& c, ImageSource& generator, const FeatureStats& other, FeatureExtractor& fx,
                 int64_t batch, FidReport& report, std::ostream& out) {
  const int64_t n = generator.size() / c.repeats;
  report.repeat_fids = {report.frechet.distance};
  for (int64_t r = 1; r < c.repeats; ++r) {
    auto range = make_range_source(generator, r * n, n);
    const SideFeatures s = extract_features(*range, fx, batch, false, false, "repeat " + std::to_string(r + 1));
    report.repeat_fids.push_back(frechet_distance(s.stats.mu, s.stats.sigma, other.mu, other.sigma, c.frechet).distance);
  }
  double lo = report.repeat_fids[0], sum = 0, ss = 0;
  for (double f : report.repeat_fids) lo = std::min(lo, f), sum += f;
  const double mean = sum / static_cast<double>(c.repeats);
  for (double f : report.repeat_fids) ss += (f - mean) * (f - mean);
  out << "FID per seed range:";
  for (size_t r = 0; r < report.repeat_fids.size(); ++r)
    out << " " << format_metric(report.repeat_fids[r]) << " (images " << r * n << "–" << (r + 1) * n - 1 << ")";
  out << "\nFID over " << c.repeats << " seed ranges: min " << format_metric(lo) << ", mean " << format_metric(mean) << ", std "
      << format_metric(std::sqrt(ss / static_cast<double>(c.repeats - 1))) << "\n";
}

}  // namespace

FidReport run_fid(const FidConfig& c, std::ostream& out, const CheckpointOpener& open_checkpoint) {
  const std::string* paths[2] = {&c.a, &c.b};
  const InputKind kinds[2] = {classify_input(c.a), classify_input(c.b)};
  const bool a_stats = kinds[0] == InputKind::stats, b_stats = kinds[1] == InputKind::stats;
  check_options(c, a_stats, b_stats);
  const ImageSource* const unopened[2] = {nullptr, nullptr};
  check_sample_metric_inputs(c, unopened);  // statistics inputs: before the extractor loads its weights
  SampleOptions sampling = c.sampling;
  if (sampling.labels == LabelMode::dataset && sampling.label_data.empty()) {  // the real side's frequencies
    for (int i = 0; i < 2; ++i)
      if (kinds[i] == InputKind::dataset) sampling.label_data = *paths[i];
    if (sampling.label_data.empty())
      throw ConfigError("fid: --labels dataset needs a labelled data set: give one as an input or as --label_data");
  }
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
  // Both inputs are opened (and statistics checked) before any features are
  // computed: a bad B must not cost A's whole pass.
  std::unique_ptr<ImageSource> sources[2], first_range;
  for (int i = 0; i < 2; ++i) {
    const std::string& path = *paths[i];
    if (kinds[i] == InputKind::stats) {
      side[i].stats = load_stats(path);
      side[i].description = path;
      if (c.features.sfid) check_sfid_stats(side[i].stats, path);
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
      SampleOptions o = sampling;
      if (kinds[i] == InputKind::checkpoint) o.n = sampling.n * c.repeats;  // disjoint seed ranges of n
      sources[i] = open_image_source(path, o, open_checkpoint);
      check_classifier_input(c.features, *sources[i], path, "fid");
    }
  }
  const ImageSource* const opened[2] = {sources[0].get(), sources[1].get()};
  check_sample_metric_inputs(c, opened);
  const int64_t batch = extractor ? feature_batch(sampling, *extractor) : 0;
  for (int i = 0; i < 2; ++i) {
    if (sources[i]) {
      ImageSource* src = sources[i].get();
      if (c.repeats > 1 && kinds[i] == InputKind::checkpoint) src = (first_range = make_range_source(*src, 0, sampling.n)).get();
      side[i] = extract_features(*src, *extractor, batch, keeps_features(c, i), c.inception_score,
                                 std::string(i == 0 ? "A" : "B") + " features", false, c.intra_class);
    }
    out << (i == 0 ? "A: " : "B: ") << side[i].description
        << (side[i].stats.n > 0 ? " (n=" + std::to_string(side[i].stats.n) + ")" : std::string(" (n not recorded)"))
        << "\n";
    warn_few_samples(side[i].stats.n, side[i].stats.mu.size(0), *paths[i]);
  }
  StatsProtocol protocol[2];
  for (int i = 0; i < 2; ++i)
    protocol[i] = sources[i] ? side_protocol(computed, side[i], kinds[i] == InputKind::checkpoint, sampling)
                             : side[i].stats.protocol;
  if (!warned) check_protocols(protocol[0], protocol[1], c, out);
  report.n_a = side[0].stats.n;
  report.n_b = side[1].stats.n;
  if (extractor) report.extractor = extractor->describe();
  report.frechet = frechet_distance(side[0].stats.mu, side[0].stats.sigma, side[1].stats.mu, side[1].stats.sigma, c.frechet);
  if (report.frechet.singular)
    out << (computed.extractor == "dinov2"
                ? "note: the covariances are singular, as DINOv2's final LayerNorm puts every embedding on a "
                  "hyperplane (rank ≤ D − 1); "
                : "note: a covariance is singular (fewer samples than dimensions or constant features); ")
        << "the symmetric square root handles it, imaginary residue " << format_metric(report.frechet.imaginary) << "\n";
  out << (computed.extractor == "dinov2" ? "FD_DINOv2: " : "FID: ") << format_metric(report.frechet.distance) << "\n";
  if (c.features.sfid) {
    report.sfid = frechet_distance(side[0].stats.mu_s, side[0].stats.sigma_s, side[1].stats.mu_s,
                                   side[1].stats.sigma_s, c.frechet).distance;
    out << "sFID: " << format_metric(*report.sfid) << " (" << to_string(c.features.sfid_layer) << ")\n";
  }
  const StatsProtocol& named = protocol[0].stamped() ? protocol[0] : protocol[1];
  if (named.stamped())
    out << "protocol: " << protocol_summary(named) << ", " << report.n_a << " vs " << report.n_b << " samples"
        << (protocol_mismatch(protocol[0], protocol[1]).empty() || !protocol[0].stamped() || !protocol[1].stamped()
                ? ""
                : " (B: " + protocol_summary(protocol[1]) + ")")
        << "\n";
  if (c.repeats > 1) {
    const int g = kinds[0] == InputKind::checkpoint ? 0 : 1;
    add_repeats(c, *sources[g], side[1 - g].stats, *extractor, batch, report, out);
  }
  if (c.inception_score) {
    for (int i = 0; i < 2; ++i) {
      if (!side[i].logits.defined()) continue;
      auto is = inception_score(side[i].logits, c.is_splits);
      (i == 0 ? report.is_a : report.is_b) = is;
      out << "IS " << (i == 0 ? "A" : "B") << ": " << format_metric(is.mean) << " ± " << format_metric(is.std) << " (" << c.is_splits
          << " splits)\n";
    }
  }
  if (c.kid) {
    report.kid = kernel_inception_distance(side[0].features, side[1].features, c.kid_options);
    out << "KID: " << format_metric(report.kid->mean) << " ± " << format_metric(report.kid->std) << " (" << c.kid_options.subsets
        << " subsets of " << std::min({c.kid_options.subset_size, report.n_a, report.n_b}) << ")\n";
  }
  add_sample_metrics(c, side, extractor ? extractor->device() : torch::Device(torch::kCPU), report, out);
  return report;
}

}  // namespace hamgan
