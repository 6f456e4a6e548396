// The metric table of evaluation during training: names, directions and needs
// as docs/training.md lists them, each row's computation on hand-made samples,
// and an Evaluator that owns nothing when no metric is asked for.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "gan/eval/evaluation.h"

namespace hamgan {
namespace {

TEST(EvalMetrics, TableGivesNamesDirectionsAndNeeds) {
  EXPECT_EQ(eval_metric_names(), (std::vector<std::string>{"class_consistency", "fid_classifier", "fid_inception", "sfid",
                                                            "dinov2", "is"}));
  using Row = std::tuple<std::string, bool, bool, bool, bool, bool, bool>;
  for (const auto& [name, higher, classifier, inception, reference, spatial, dinov2] :
       std::vector<Row>{{"class_consistency", true, true, false, false, false, false},
                        {"fid_classifier", false, true, false, false, false, false},
                        {"fid_inception", false, false, true, true, false, false},
                        {"sfid", false, false, true, true, true, false},
                        {"dinov2", false, false, false, false, false, true},
                        {"is", true, false, true, false, false, false}}) {
    const EvalMetric* m = find_eval_metric(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->higher_is_better, higher) << name;
    EXPECT_EQ(higher_is_better(name), higher) << name;
    EXPECT_EQ(uses_classifier(name), classifier) << name;
    EXPECT_EQ(uses_inception(name), inception) << name;
    EXPECT_EQ(m->needs_reference, reference) << name;
    EXPECT_EQ(m->needs_spatial, spatial) << name;
    EXPECT_EQ(m->needs_dinov2, dinov2) << name;
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

// sFID reads the spatial columns against mu_s/sigma_s, FD_DINOv2 the DINOv2 columns against its own reference.
TEST(EvalMetrics, SfidAndDinov2ReadTheirOwnColumnsAndReferences) {
  torch::manual_seed(4);
  GeneratedSamples s;
  s.count = 64;
  s.inception_spatial = torch::randn({64, 5});
  s.dinov2_features = torch::randn({64, 3}) + 2;
  EvalExtractors e;
  RunningStats spatial, dino;
  spatial.add(s.inception_spatial);
  dino.add(s.dinov2_features);
  const FeatureStats sp = spatial.finish();
  e.inception_real.mu_s = sp.mu;
  e.inception_real.sigma_s = sp.sigma;
  e.inception_real.mu = torch::full({5}, 100.0, torch::kFloat64);  // the pool statistics must not be read
  e.dinov2_real = dino.finish();
  e.inception_protocol = "inception sha256 x";
  e.dinov2_protocol = "dinov2 sha256 y";
  const MetricValue v = find_eval_metric("sfid")->compute(s, e);
  EXPECT_NEAR(v.value, 0.0, 1e-6);
  EXPECT_EQ(v.protocol, "inception sha256 x, sFID vs 64 generated");
  e.dinov2_real.mu = e.dinov2_real.mu + 1.0;  // shifted by 1 in each of 3 dims: FD = 3
  const MetricValue d = find_eval_metric("dinov2")->compute(s, e);
  EXPECT_NEAR(d.value, 3.0, 1e-6);
  EXPECT_EQ(d.protocol, "dinov2 sha256 y vs 64 generated");
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
    EXPECT_STREQ(e.what(), "train: no evaluation metric kid (known: class_consistency, fid_classifier, fid_inception, sfid, "
                 "dinov2, is)");
  }
}

}  // namespace
}  // namespace hamgan
