// `hamgan bench fid`: feature-extraction throughput of Inception and the classifier.
#include <iostream>

#include "cli/fid_options.h"

namespace hamgan::cli {
static CommandRegistrar bench_fid_registrar("bench.fid", [](CLI::App& root) {
  auto* sub = root.get_subcommand("bench")->add_subcommand(
      "fid", "Feature extraction images/s (Inception: random weights unless given; classifier)");
  add_config_file_option(sub);
  auto c = std::make_shared<FidBenchConfig>();
  auto finish_features = add_feature_options(sub, c->features);
  sub->add_option("--classifier", c->classifier, "Classifier file (default: an untrained one)")->capture_default_str();
  sub->add_option("--images", c->images, "Images timed per extractor")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--batch", c->batch, "Batch size")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--size", c->size, "Side of the synthetic input images")->check(CLI::Range(8, 4096))->capture_default_str();
  sub->callback([c, finish_features] {
    finish_features();
    run_fid_bench(*c, std::cout);
  });
});
}  // namespace hamgan::cli
