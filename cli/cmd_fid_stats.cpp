// `hamgan fid-stats SRC --out FILE.npz`: FID statistics (mu, sigma) of a data set or generator.
#include <iostream>

#include "cli/fid_options.h"
#include "gan/sample/checkpoint_source.h"

namespace hamgan::cli {
static CommandRegistrar fid_stats_registrar("fid-stats", [](CLI::App& root) {
  auto* sub = root.add_subcommand("fid-stats", "Write FID statistics (mu, sigma; pytorch-fid's .npz layout) of a data set "
                                               "or generator checkpoint");
  add_config_file_option(sub);
  auto c = std::make_shared<FidStatsConfig>();
  sub->add_option("SRC", c->source, "Data set or generator checkpoint")->required();
  sub->add_option("--out", c->out, "Statistics file to write (.npz)")->required();
  auto stored = std::make_shared<bool>(false);
  sub->add_flag("--stored", *stored, "Write members uncompressed (np.savez) instead of deflated (np.savez_compressed)")
      ->capture_default_str();
  auto finish_features = add_feature_options(sub, c->features);
  add_sample_options(sub, c->sampling);
  sub->callback([c, stored, finish_features] {
    finish_features();
    c->compressed = !*stored;
    run_fid_stats(*c, std::cout, checkpoint_opener(c->features.device));  // G on the --device the features use
  });
});
}  // namespace hamgan::cli
