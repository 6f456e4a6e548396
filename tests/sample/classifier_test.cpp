// The Fashion-MNIST classifier training and class-consistency.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <numeric>

#include "core/errors.h"
#include "gan/sample/class_consistency.h"
#include "metrics/classifier_training.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

TEST(ClassifierTraining, LearnsFromASliceAndReloadsWithTheSameAccuracy) {
  const std::string dir = test::temp_dir("classifier");
  ClassifierTrainConfig c;
  c.out = dir + "/c.pt";
  c.width = 8;
  c.epochs = 1;
  c.max_train = 5120;
  c.batch_size = 64;
  c.max_test = 1000;
  c.min_accuracy = 0.4;  // ten-way chance is 0.1; 80 updates on 5k images reach about 0.5
  c.device = "cpu";
  c.progress = false;
  const ClassifierTrainResult r = train_classifier(c);
  EXPECT_GE(r.test_accuracy, 0.4);
  FeatureClassifier loaded = load_classifier(r.path);
  DatasetSpec spec;
  spec.split = "test";
  spec.size = 32;
  spec.channels = 1;
  EXPECT_DOUBLE_EQ(classifier_accuracy(loaded, *open_dataset(spec), 1000), r.test_accuracy);
  // Refusing a poor classifier leaves no file.
  c.out = dir + "/poor.pt";
  c.max_train = 128;
  c.min_accuracy = 0.99;
  EXPECT_THROW(train_classifier(c), Error);
  EXPECT_FALSE(std::filesystem::exists(c.out));
}

TEST(ClassConsistency, IsTheMeanOfBalancedPerClassHitRates) {
  torch::manual_seed(0);
  TrainConfig t = test::tiny_config("/tmp/unused");
  Generator g(t.model);
  ClassifierConfig cc;
  cc.width = 4;
  FeatureClassifier clf(cc);
  const ClassConsistency r = class_consistency(g, clf, 200, 1, 64);
  ASSERT_EQ(r.per_class.size(), 10u);
  // 200 images, 20 per class: the overall fraction is the plain mean of the per-class fractions,
  // each of which is a multiple of 1/20.
  EXPECT_NEAR(r.overall, std::accumulate(r.per_class.begin(), r.per_class.end(), 0.0) / 10, 1e-12);
  for (double v : r.per_class) EXPECT_NEAR(v * 20, std::round(v * 20), 1e-9);
  // An untrained classifier predicts (nearly) one class whatever the input: about 1/K consistency.
  EXPECT_LT(r.overall, 0.5);
  // Same seed, same answer, and the caller's random stream is untouched.
  torch::manual_seed(5);
  const torch::Tensor expected_next = torch::rand({4});
  torch::manual_seed(5);
  const ClassConsistency again = class_consistency(g, clf, 200, 1, 64);
  EXPECT_EQ(again.per_class, r.per_class);
  EXPECT_TRUE(torch::equal(torch::rand({4}), expected_next));
  cc.num_classes = 7;
  FeatureClassifier wrong(cc);
  EXPECT_THROW(class_consistency(g, wrong, 10, 1), ConfigError);
}

}  // namespace
}  // namespace hamgan
