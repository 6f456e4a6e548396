// The checks of the generator-side options that `hamgan fid` and `fid-stats` make
// before any weights load (declared in metrics/fid.h): a generator's z and labels
// are drawn for every image up front (gan/sample/noise.h), so an absurd count
// must fail at once, not as a terabyte allocation after the feature extractor loaded.
#include <string>

#include "core/errors.h"
#include "metrics/fid.h"

namespace hamgan {

// n images per seed range times `repeats` ranges from one generator.
void check_generated_count(int64_t n, int64_t repeats) {
  if (n <= 0 || repeats <= 0 || n <= kMaxGeneratedImages / repeats) return;
  const std::string asked =
      "--n " + std::to_string(n) + (repeats > 1 ? " × --repeats " + std::to_string(repeats) : std::string());
  throw ConfigError(asked + " asks a generator for more than the 10,000,000 images HamGAN draws up front (200 times "
                    "FID's 50,000); lower " + (repeats > 1 ? "--repeats or --n" : std::string("--n")));
}

// --label_data matters only with --labels dataset; taken silently otherwise, it would change nothing.
void check_label_data_used(const SampleOptions& s) {
  if (!s.label_data.empty() && s.labels != LabelMode::dataset)
    throw ConfigError("--label_data " + s.label_data + " is read only with --labels dataset, not --labels " +
                      to_string(s.labels) + "; add --labels dataset or drop --label_data");
}

}  // namespace hamgan
