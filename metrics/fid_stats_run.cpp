// `hamgan fid-stats`: the statistics of one input written as a stamped .npz (declared in metrics/fid.h).
#include "core/errors.h"
#include "metrics/fid.h"

namespace hamgan {

FeatureStats run_fid_stats(const FidStatsConfig& c, std::ostream& out, const CheckpointOpener& open_checkpoint) {
  if (classify_input(c.out) != InputKind::stats) throw ConfigError("--out must name an .npz file, got '" + c.out + "'");
  const InputKind kind = classify_input(c.source);
  if (kind == InputKind::stats) throw ConfigError(c.source + " is already a statistics file");
  if (kind == InputKind::checkpoint) check_generated_count(c.sampling.n, 1);
  check_label_data_used(c.sampling);
  auto extractor = make_feature_extractor(c.features);
  out << "features: " << extractor->describe() << "\n";
  SampleOptions sampling = c.sampling;
  if (sampling.labels == LabelMode::dataset && sampling.label_data.empty() && kind == InputKind::checkpoint)
    throw ConfigError("fid-stats: --labels dataset needs --label_data DATA, the data set whose class frequencies "
                      "the generator is asked for");
  if (!sampling.latents.empty() && kind != InputKind::checkpoint)
    throw ConfigError("--latents " + sampling.latents + " gives a generator's inputs, but " + c.source +
                      " is not a generator checkpoint; drop --latents");
  auto source = open_image_source(c.source, sampling, open_checkpoint);
  check_classifier_input(c.features, *source, c.source, "fid-stats");
  const bool data_set = kind == InputKind::dataset;  // generators are named by checkpoint and step
  auto side = extract_features(*source, *extractor, feature_batch(sampling, *extractor), false, false, "features",
                               data_set);
  warn_few_samples(side.stats.n, side.stats.mu.size(0), c.source);
  side.stats.protocol = side_protocol(extractor_protocol(c.features, *extractor), side, !data_set, sampling);
  save_stats(c.out, side.stats, c.compressed);
  out << "wrote " << c.out << ": mu " << side.stats.mu.size(0) << ", sigma " << side.stats.sigma.size(0) << "×"
      << side.stats.sigma.size(1) << " float64" << (side.stats.mu_s.defined() ? ", sFID's mu_s and sigma_s" : "")
      << " from " << side.stats.n << " images of " << side.description << "\n";
  return side.stats;
}

}  // namespace hamgan
