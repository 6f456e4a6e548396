// Intra-class FID, precision/recall/density/coverage and the bootstrap interval
// of `hamgan fid` (declared in metrics/fid.h): the metrics that need every
// image's features, not only mu and sigma.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "core/errors.h"
#include "metrics/fid.h"

namespace hamgan {
namespace {

const char* side_name(int i) { return i == 0 ? "A" : "B"; }

}  // namespace

int generated_side(const FidConfig& c) {
  const InputKind a = classify_input(c.a), b = classify_input(c.b);
  if ((a == InputKind::checkpoint) != (b == InputKind::checkpoint)) return a == InputKind::checkpoint ? 0 : 1;
  if ((a == InputKind::stats) != (b == InputKind::stats)) return a == InputKind::stats ? 1 : 0;
  return 0;
}

bool keeps_features(const FidConfig& c, int side) {
  return c.kid || c.prdc || c.intra_class || (c.bootstrap > 0 && side == generated_side(c));
}

void check_sample_metric_inputs(const FidConfig& c, const ImageSource* const sources[2]) {
  const std::string* paths[2] = {&c.a, &c.b};
  for (int i = 0; i < 2; ++i) {
    if (classify_input(*paths[i]) == InputKind::stats) {
      const std::string what = *paths[i] + " is a statistics file (mu and sigma only)";
      if (c.prdc)
        throw ConfigError("--prdc needs image features on both sides; " + what +
                          ": pass the images instead (a data set, image folder or generator checkpoint)");
      if (c.intra_class)
        throw ConfigError("--intra_class needs class labels on both sides; " + what +
                          ": pass images in class sub-folders, a labelled data set (IDX, HDF5) or a generator checkpoint");
    } else if (c.intra_class && sources[i] && !sources[i]->labelled()) {
      throw ConfigError("--intra_class needs class labels on both sides; " + *paths[i] +
                        " has none (one class): pass images in class sub-folders, a labelled data set (IDX, HDF5) or "
                        "a class-conditional generator checkpoint");
    }
  }
  if (c.bootstrap > 0 && classify_input(generated_side(c) == 0 ? c.a : c.b) == InputKind::stats)
    throw ConfigError("--bootstrap resamples the generated images' features; " + c.a + " and " + c.b +
                      " are both statistics files: pass the generated images (a generator checkpoint or image folder)");
}

void add_sample_metrics(const FidConfig& c, const SideFeatures side[2], torch::Device device, FidReport& report,
                        std::ostream& out) {
  const int gen = generated_side(c), real = 1 - gen;
  report.generated = gen;
  if (c.bootstrap > 0) {
    // The point estimate above used every generated image once; each resample draws n with replacement.
    report.bootstrap = bootstrap_fid(side[gen].features.to(device), side[real].stats,
                                     BootstrapOptions{c.bootstrap, c.bootstrap_seed, 0.95});
    out << "FID 95% interval (bootstrap " << c.bootstrap << ", resampling " << side_name(gen) << ", seed "
        << c.bootstrap_seed << "): [" << format_metric(report.bootstrap->lower) << ", " << format_metric(report.bootstrap->upper)
        << "], std " << format_metric(report.bootstrap->std) << "\n";
  }
  if (c.prdc) {
    PrdcOptions o;
    o.k = c.prdc_k;
    report.prdc = compute_prdc(side[real].features.to(device), side[gen].features.to(device), o);
    out << "precision: " << format_metric(report.prdc->precision) << " (k=" << o.k << ", " << side_name(gen) << " generated, "
        << side_name(real) << " real)\n"
        << "recall: " << format_metric(report.prdc->recall) << "\n"
        << "density: " << format_metric(report.prdc->density) << "\n"
        << "coverage: " << format_metric(report.prdc->coverage) << "\n";
  }
  if (c.intra_class) {
    report.intra_class =
        intra_class_fid(side[0].features, side[0].labels, side[1].features, side[1].labels, c.frechet);
    const IntraClassFid& r = *report.intra_class;
    const int64_t dim = side[0].features.size(1);
    if (r.min_samples <= dim)
      std::cerr << "hamgan: warning: intra-class FID has classes with " << r.min_samples << " samples for " << dim
                << "-d features: their covariances are rank-deficient and the per-class FIDs unreliable (use more "
                   "images per class, --n)\n";
    out << "intra-class FID: mean " << format_metric(r.mean) << " over " << r.classes.size() << " classes; worst:";
    const auto worst = worst_classes(r, c.intra_class_worst);
    for (size_t i = 0; i < worst.size(); ++i)
      out << (i ? ", " : " ") << "class " << worst[i].label << " " << format_metric(worst[i].fid);
    out << "\n";
    if (!r.skipped.empty()) {
      out << "note: intra-class FID skipped " << r.skipped.size()
          << " classes with fewer than 2 images on a side:";
      for (size_t i = 0; i < std::min<size_t>(r.skipped.size(), 20); ++i) out << (i ? ", " : " ") << r.skipped[i];
      if (r.skipped.size() > 20) out << ", …";
      out << "\n";
    }
  }
}

}  // namespace hamgan
