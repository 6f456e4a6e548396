#pragma once
// Options shared by `hamgan fid`, `hamgan fid-stats` and `hamgan bench fid`.
#include "cli/command.h"
#include "cli/data_options.h"
#include "cli/field_options.h"
#include "metrics/fid.h"

namespace hamgan::cli {

// --features, --inception, --resize, --device.
const FieldTable<FeatureOptions>& feature_option_fields();
// --n, --batch, --seed, --standing_stats and the dataset options.
FieldTable<SampleOptions> sample_option_fields();
// With --latents and no --n (command line or --config file): n = the file's rows over `repeats` (the seed
// ranges of fid --repeats), so every row is scored once; ConfigError naming the file when they do not split.
void default_n_from_latents(const CLI::App* app, SampleOptions& sampling, int64_t repeats = 1);

}  // namespace hamgan::cli
