// `hamgan train-classifier`: the Fashion-MNIST classifier behind class-consistency and classifier-feature FID.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "metrics/classifier_training.h"

namespace hamgan::cli {
namespace {

FieldTable<ClassifierTrainConfig> classifier_fields() {
  using C = ClassifierTrainConfig;
  return {
      member_field(string_field("dataset", "IDX directory with train and test splits"), &C::dataset),
      member_field(string_field("out", "Classifier file to write"), &C::out),
      member_field(int_field("image_size", "Input side (the GANs' resolution)", between(8, 512)), &C::image_size),
      member_field(int_field("channels", "Input channels", one_of({1, 3})), &C::channels),
      member_field(int_field("width", "First-stage channels", at_least(1)), &C::width),
      member_field(int_field("feature_dim", "Feature (penultimate) width", at_least(1)), &C::feature_dim),
      member_field(int_field("epochs", "Passes over the training split", at_least(1)), &C::epochs),
      member_field(int_field("batch_size", "Images per update", at_least(1)), &C::batch_size),
      member_field(float_field("lr", "Adam learning rate (cosine decay)", above(0)), &C::lr),
      member_field(int_field("seed", "Seed", at_least(0)), &C::seed),
      member_field(string_field("device", "auto | cpu | cuda | cuda:N"), &C::device),
      member_field(int_field("max_train", "Only the first N training images (0: all)", at_least(0)), &C::max_train),
      member_field(int_field("max_test", "Only the first N test images (0: all)", at_least(0)), &C::max_test),
      member_field(float_field("min_accuracy", "Refuse to write a classifier below this test accuracy",
                               between(0, 1)),
                   &C::min_accuracy),
      make_field<C>(flag_field("quiet", "No progress bar"), [](const C& c) { return format_value(!c.progress); },
                    [](C& c, const std::string& s) { c.progress = s != "true"; }),
  };
}

}  // namespace

static CommandRegistrar train_classifier_registrar("train-classifier", [](CLI::App& root) {
  auto cfg = std::make_shared<ClassifierTrainConfig>();
  auto* sub = root.add_subcommand("train-classifier", "Train the Fashion-MNIST classifier used for class-consistency and FID features");
  add_config_file_option(sub);
  add_field_options(sub, classifier_fields(), *cfg, "Options");
  on_run(sub, [cfg] {
    const auto r = train_classifier(*cfg);
    std::cout << "train-classifier: test accuracy " << r.test_accuracy << " -> " << r.path << "\n";
  });
});

}  // namespace hamgan::cli
