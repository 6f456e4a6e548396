// `hamgan fid A B`: FID (and IS/KID on request) between two inputs.
#include <iostream>

#include "cli/fid_options.h"
#include "gan/sample/checkpoint_source.h"

namespace hamgan::cli {
static CommandRegistrar fid_registrar("fid", [](CLI::App& root) {
  auto* sub = root.add_subcommand(
      "fid", "FID between A and B, each a statistics .npz, a data set or a generator checkpoint (.pt or run dir)");
  add_config_file_option(sub);
  auto c = std::make_shared<FidConfig>();
  sub->add_option("A", c->a, "First input")->required();
  sub->add_option("B", c->b, "Second input")->required();
  auto finish_features = add_feature_options(sub, c->features);
  add_sample_options(sub, c->sampling);
  sub->add_flag("--is", c->inception_score, "Also print the Inception Score of each image input")->capture_default_str();
  sub->add_option("--is_splits", c->is_splits, "IS splits")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_flag("--kid", c->kid, "Also print KID (both inputs must be images)")->capture_default_str();
  sub->add_option("--kid_subsets", c->kid_options.subsets, "KID subsets")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--kid_subset_size", c->kid_options.subset_size, "KID subset size")
      ->check(CLI::Range(2, 1 << 30))
      ->capture_default_str();
  sub->add_flag("--intra_class", c->intra_class,
                "Also print the FID per class (mean and worst classes; both inputs need class labels)")
      ->capture_default_str();
  sub->add_option("--intra_class_worst", c->intra_class_worst, "Worst classes named by --intra_class")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_flag("--prdc", c->prdc, "Also print precision, recall, density and coverage (both inputs must be images)")
      ->capture_default_str();
  sub->add_option("--prdc_k", c->prdc_k, "Nearest neighbours for --prdc")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--bootstrap", c->bootstrap,
                  "Resamples of the generated side's features for a 95% FID interval (0: off)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--bootstrap_seed", c->bootstrap_seed, "Seed of the bootstrap resamples")->capture_default_str();
  sub->add_flag("--eps_offset", c->frechet.eps_offset,
                "Add eps·I to both covariances first (pytorch-fid's singular-product fallback)")
      ->capture_default_str();
  sub->add_flag("--allow_protocol_mismatch", c->allow_protocol_mismatch,
                "Compare statistics made with other weights, preprocessing or image size (with a warning)")
      ->capture_default_str();
  sub->add_option("--eps", c->frechet.eps, "The eps of --eps_offset")->check(CLI::PositiveNumber)->capture_default_str();
  sub->callback([c, finish_features] {
    finish_features();
    run_fid(*c, std::cout, checkpoint_opener(c->features.device));  // G on the --device the features use
  });
});
}  // namespace hamgan::cli
