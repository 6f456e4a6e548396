// `hamgan fid-stats SRC --out FILE.npz`: FID statistics (mu, sigma) of a data set or generator.
#include <iostream>

#include "cli/fid_options.h"
#include "cli/generator_fields.h"
#include "gan/sample/checkpoint_source.h"

namespace hamgan::cli {
namespace {

FieldTable<FidStatsConfig> fid_stats_fields() {
  using C = FidStatsConfig;
  const FieldTable<C> own = {
      member_field(required(string_field("out", "Statistics file to write (.npz)")), &C::out),
      // --stored writes np.savez members: the negation of `compressed`.
      make_field<C>(flag_field("stored", "Write members uncompressed (np.savez) instead of deflated "
                                         "(np.savez_compressed)"),
                    [](const C& c) { return format_value(!c.compressed); },
                    [](C& c, const std::string& s) { c.compressed = s != "true"; }),
  };
  return concat_fields(concat_fields(own, nested_fields(feature_option_fields(), &C::features)),
                       nested_fields(sample_option_fields(), &C::sampling));
}

}  // namespace

static CommandRegistrar fid_stats_registrar("fid-stats", [](CLI::App& root) {
  auto* sub = root.add_subcommand("fid-stats", "Write FID statistics (mu, sigma; pytorch-fid's .npz layout) of a data set "
                                               "or generator checkpoint");
  add_config_file_option(sub);
  auto c = std::make_shared<FidStatsConfig>();
  add_argument(sub, "SRC", c->source, "Data set or generator checkpoint", true);
  add_field_options(sub, fid_stats_fields(), *c, "Options");
  const auto resample = add_resample_conv_option(sub);  // generator inputs only
  on_run(sub, [c, sub, resample] {
    default_n_from_latents(sub, c->sampling);
    run_fid_stats(*c, std::cout, checkpoint_opener(c->features.device, *resample));  // G on the --device the features use
  });
});

}  // namespace hamgan::cli
