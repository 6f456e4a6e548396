// `hamgan fid A B`: FID (and IS/KID on request) between two inputs.
#include <iostream>

#include "cli/fid_options.h"
#include "cli/generator_fields.h"
#include "gan/sample/checkpoint_source.h"

namespace hamgan::cli {
namespace {

FieldTable<FidConfig> fid_fields() {
  using C = FidConfig;
  const FieldTable<KidOptions> kid = {
      member_field(int_field("kid_subsets", "KID subsets", at_least(1)), &KidOptions::subsets),
      member_field(int_field("kid_subset_size", "KID subset size", between(2, 1 << 30)), &KidOptions::subset_size),
  };
  const FieldTable<FrechetOptions> frechet = {
      member_field(flag_field("eps_offset", "Add eps·I to both covariances first (pytorch-fid's singular-product "
                                            "fallback)"),
                   &FrechetOptions::eps_offset),
      member_field(float_field("eps", "The eps of --eps_offset", above(0)), &FrechetOptions::eps),
  };
  const FieldTable<C> own = {
      member_field(flag_field("is", "Also print the Inception Score of each image input"), &C::inception_score),
      member_field(int_field("is_splits", "IS splits", at_least(1)), &C::is_splits),
      member_field(flag_field("kid", "Also print KID (both inputs must be images)"), &C::kid),
      member_field(flag_field("intra_class", "Also print the FID per class (mean and worst classes; both inputs "
                                             "need class labels)"),
                   &C::intra_class),
      member_field(int_field("intra_class_worst", "Worst classes named by --intra_class", at_least(0)),
                   &C::intra_class_worst),
      member_field(flag_field("prdc", "Also print precision, recall, density and coverage (both inputs must be "
                                      "images)"),
                   &C::prdc),
      member_field(int_field("prdc_k", "Nearest neighbours for --prdc", at_least(1)), &C::prdc_k),
      member_field(int_field("bootstrap", "Resamples of the generated side's features for a 95% FID interval (0: off)",
                             at_least(0)),
                   &C::bootstrap),
      member_field(int_field("bootstrap_seed", "Seed of the bootstrap resamples", at_least(0)), &C::bootstrap_seed),
      member_field(int_field("repeats", "A generator input: FID on this many disjoint seed ranges of --n images, each "
                                        "printed with their min, mean and std (EDM's convention)",
                             at_least(1)),
                   &C::repeats),
      member_field(flag_field("allow_protocol_mismatch", "Compare statistics made with other weights, preprocessing "
                                                         "or image size (with a warning)"),
                   &C::allow_protocol_mismatch),
  };
  auto t = concat_fields(nested_fields(feature_option_fields(), &C::features),
                         nested_fields(sample_option_fields(), &C::sampling));
  t = concat_fields(t, own);
  t = concat_fields(t, nested_fields(kid, &C::kid_options));
  return concat_fields(t, nested_fields(frechet, &C::frechet));
}

}  // namespace

static CommandRegistrar fid_registrar("fid", [](CLI::App& root) {
  auto* sub = root.add_subcommand(
      "fid", "FID between A and B, each a statistics .npz, a data set or a generator checkpoint (.pt or run dir)");
  add_config_file_option(sub);
  auto c = std::make_shared<FidConfig>();
  add_argument(sub, "A", c->a, "First input", true);
  add_argument(sub, "B", c->b, "Second input", true);
  add_field_options(sub, fid_fields(), *c, "Options");
  const auto resample = add_resample_conv_option(sub);  // generator inputs only
  on_run(sub, [c, sub, resample] {
    default_n_from_latents(sub, c->sampling, c->repeats);
    run_fid(*c, std::cout, checkpoint_opener(c->features.device, *resample));  // G on the --device the features use
  });
});

}  // namespace hamgan::cli
