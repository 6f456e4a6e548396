// `hamgan class-consistency`: the fraction of class-balanced samples the Fashion-MNIST classifier assigns to
// the requested class.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "cli/generator_fields.h"
#include "gan/sample/class_consistency.h"

namespace hamgan::cli {
namespace {

FieldTable<ClassConsistencyConfig> class_consistency_fields() {
  using C = ClassConsistencyConfig;
  const FieldTable<C> own = {
      member_field(required(string_field("checkpoint", "Checkpoint file or run directory")), &C::checkpoint),
      member_field(string_field("classifier", "Classifier file (trained first if missing)"), &C::classifier),
      member_field(int_field("n", "Generated images", at_least(1)), &C::n),
  };
  return concat_fields(own, generator_checkpoint_fields<C>());
}

}  // namespace

static CommandRegistrar class_consistency_registrar("class-consistency", [](CLI::App& root) {
  auto cfg = std::make_shared<ClassConsistencyConfig>();
  auto* sub = root.add_subcommand("class-consistency",
                                  "Fraction of class-balanced samples the classifier assigns to the requested class");
  add_config_file_option(sub);
  add_field_options(sub, class_consistency_fields(), *cfg, "Options");
  on_run(sub, [cfg] {
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
