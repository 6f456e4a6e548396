// `hamgan train-classifier`: the Fashion-MNIST classifier behind class-consistency and classifier-feature FID.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "metrics/classifier_training.h"

namespace hamgan::cli {

static CommandRegistrar train_classifier_registrar("train-classifier", [](CLI::App& root) {
  auto cfg = std::make_shared<ClassifierTrainConfig>();
  auto quiet = std::make_shared<bool>(false);
  ClassifierTrainConfig& c = *cfg;
  auto* sub = root.add_subcommand("train-classifier", "Train the Fashion-MNIST classifier used for class-consistency and FID features");
  add_config_file_option(sub);
  sub->add_option("--dataset", c.dataset, "IDX directory with train and test splits")->capture_default_str();
  sub->add_option("--out", c.out, "Classifier file to write")->capture_default_str();
  sub->add_option("--image_size", c.image_size, "Input side (the GANs' resolution)")->check(CLI::Range(8, 512))->capture_default_str();
  sub->add_option("--channels", c.channels, "Input channels")->check(CLI::IsMember({1, 3}))->capture_default_str();
  sub->add_option("--width", c.width, "First-stage channels")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--feature_dim", c.feature_dim, "Feature (penultimate) width")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--epochs", c.epochs, "Passes over the training split")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--batch_size", c.batch_size, "Images per update")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--lr", c.lr, "Adam learning rate (cosine decay)")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--seed", c.seed, "Seed")->capture_default_str();
  sub->add_option("--device", c.device, "auto | cpu | cuda | cuda:N")->capture_default_str();
  sub->add_option("--max_train", c.max_train, "Only the first N training images (0: all)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--max_test", c.max_test, "Only the first N test images (0: all)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--min_accuracy", c.min_accuracy, "Refuse to write a classifier below this test accuracy")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  sub->add_flag("--quiet", *quiet, "No progress bar")->configurable(false);
  sub->callback([cfg, quiet] {
    cfg->progress = !*quiet;
    const auto r = train_classifier(*cfg);
    std::cout << "train-classifier: test accuracy " << r.test_accuracy << " -> " << r.path << "\n";
  });
});

}  // namespace hamgan::cli
