// `hamgan class-consistency`: the fraction of class-balanced samples the Fashion-MNIST classifier assigns to
// the requested class.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "gan/sample/class_consistency.h"

namespace hamgan::cli {

static CommandRegistrar class_consistency_registrar("class-consistency", [](CLI::App& root) {
  auto cfg = std::make_shared<ClassConsistencyConfig>();
  ClassConsistencyConfig& c = *cfg;
  auto* sub = root.add_subcommand("class-consistency",
                                  "Fraction of class-balanced samples the classifier assigns to the requested class");
  add_config_file_option(sub);
  sub->add_option("--checkpoint", c.checkpoint, "Checkpoint file or run directory")->required();
  sub->add_option("--classifier", c.classifier, "Classifier file (trained first if missing)")->capture_default_str();
  sub->add_option("--n", c.n, "Generated images")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--seed", c.seed, "Seed of z")->capture_default_str();
  sub->add_flag("--raw", c.raw, "Use the raw G weights instead of the EMA");
  sub->add_option("--standing_stats", c.standing_stats, "Batches of 64 to recompute G's BN statistics over (0: stored moving averages)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--device", c.device, "auto | cpu | cuda | cuda:N")->capture_default_str();
  sub->callback([cfg] {
    const ClassConsistency r = run_class_consistency(*cfg);
    std::cout << "per class:";
    for (double v : r.per_class) {
      char b[16];
      std::snprintf(b, sizeof(b), " %.3f", v);
      std::cout << b;
    }
    char b[64];
    std::snprintf(b, sizeof(b), "class-consistency: %.4f\n", r.overall);
    std::cout << "\nsamples: " << r.n << " (class-balanced)\n" << b;
  });
});

}  // namespace hamgan::cli
