// The metric table of evaluation during training: names, directions and needs
// as docs/training.md lists them, each row's computation on hand-made samples,
// and an Evaluator that owns nothing when no metric is asked for.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "gan/eval/evaluation.h"

namespace hamgan {
namespace {

TEST(EvalMetrics, TableGivesNamesDirectionsAndNeeds) {
  EXPECT_EQ(eval_metric_names(), (std::vector<std::string>{"class_consistency", "fid_classifier", "fid_inception", "is"}));
  for (const auto& [name, higher, classifier, inception, reference] :
       std::vector<std::tuple<std::string, bool, bool, bool, bool>>{{"class_consistency", true, true, false, false},
                                                                    {"fid_classifier", false, true, false, false},
                                                                    {"fid_inception", false, false, true, true},
                                                                    {"is", true, false, true, false}}) {
    const EvalMetric* m = find_eval_metric(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->higher_is_better, higher) << name;
    EXPECT_EQ(higher_is_better(name), higher) << name;
    EXPECT_EQ(uses_classifier(name), classifier) << name;
    EXPECT_EQ(uses_inception(name), inception) << name;
    EXPECT_EQ(m->needs_reference, reference) << name;
    EXPECT_NE(m->compute, nullptr) << name;
  }
  EXPECT_EQ(find_eval_metric("kid"), nullptr);
  EXPECT_FALSE(higher_is_better("kid"));
  EXPECT_FALSE(uses_classifier("kid"));
  EXPECT_FALSE(uses_inception("kid"));
}

TEST(EvalMetrics, ClassConsistencyIsTheFractionGivenTheRequestedClass) {
  GeneratedSamples s;
  s.count = 4;
  s.classifier_predictions = torch::tensor({0.f, 1.f, 2.f, 3.f});
  s.requested_classes = torch::tensor({0.f, 1.f, 0.f, 3.f});
  const MetricValue v = find_eval_metric("class_consistency")->compute(s, EvalExtractors{});
  EXPECT_DOUBLE_EQ(v.value, 0.75);
  EXPECT_EQ(v.protocol, "classifier argmax over 4 generated");
}

TEST(EvalMetrics, FidAgainstTheSamplesOwnStatisticsIsZero) {
  torch::manual_seed(3);
  GeneratedSamples s;
  s.count = 64;
  s.classifier_features = torch::randn({64, 4});
  EvalExtractors e;
  RunningStats real;
  real.add(s.classifier_features);
  e.classifier_real = real.finish();
  e.classifier_protocol = "classifier:c.pt";
  const MetricValue v = find_eval_metric("fid_classifier")->compute(s, e);
  EXPECT_NEAR(v.value, 0.0, 1e-6);
  EXPECT_EQ(v.protocol, "classifier:c.pt vs 64 generated");
}

TEST(EvalMetrics, InceptionScoreOfUniformLogitsIsOneWithAtMostTenSplits) {
  GeneratedSamples s;
  s.count = 5;
  s.inception_logits = torch::zeros({5, 8});
  EvalExtractors e;
  e.inception_protocol = "inception sha256 x";
  const MetricValue v = find_eval_metric("is")->compute(s, e);
  EXPECT_NEAR(v.value, 1.0, 1e-12);
  EXPECT_EQ(v.protocol, "inception sha256 x, 5 splits of 5 generated");
}

TEST(Evaluator, WithoutMetricsOpensNothingAndReturnsNoRow) {
  EvalSettings settings;
  settings.classifier = "/nonexistent/classifier.pt";
  Evaluator evaluator(settings, torch::kCPU);
  EXPECT_EQ(evaluator.settings().classifier, settings.classifier);
  Generator none{nullptr};
  EXPECT_TRUE(evaluator.evaluate(none).empty());
}

TEST(Evaluator, RejectsAMetricNotInTheTable) {
  EvalSettings settings;
  settings.metrics = {"kid"};
  try {
    Evaluator evaluator(settings, torch::kCPU);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "train: no evaluation metric kid (known: class_consistency, fid_classifier, fid_inception, is)");
  }
}

}  // namespace
}  // namespace hamgan
