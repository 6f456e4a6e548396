#include "gan/eval/eval_metrics.h"

#include <algorithm>

#include "metrics/frechet.h"
#include "metrics/scores.h"

namespace hamgan {
namespace {

constexpr int64_t kIsSplits = 10;  // the Inception Score's customary splits

std::string generated(const GeneratedSamples& s) { return std::to_string(s.count) + " generated"; }

double fd_against(const torch::Tensor& features, const torch::Tensor& mu, const torch::Tensor& sigma) {
  RunningStats stats;
  stats.add(features);
  const FeatureStats fake = stats.finish();
  return frechet_distance(fake.mu, fake.sigma, mu, sigma).distance;
}

double fid_against(const torch::Tensor& features, const FeatureStats& real) {
  return fd_against(features, real.mu, real.sigma);
}

// Fraction of samples the classifier assigns to the class they were generated for.
MetricValue class_consistency(const GeneratedSamples& s, const EvalExtractors&) {
  const double agree = (s.classifier_predictions == s.requested_classes).sum().item<double>();
  return {agree / static_cast<double>(s.count), "classifier argmax over " + generated(s)};
}

MetricValue fid_classifier(const GeneratedSamples& s, const EvalExtractors& e) {
  return {fid_against(s.classifier_features, e.classifier_real), e.classifier_protocol + " vs " + generated(s)};
}

MetricValue fid_inception(const GeneratedSamples& s, const EvalExtractors& e) {
  return {fid_against(s.inception_features, e.inception_real),
          e.inception_protocol + e.inception_reference + " vs " + generated(s)};
}

MetricValue sfid(const GeneratedSamples& s, const EvalExtractors& e) {
  return {fd_against(s.inception_spatial, e.inception_real.mu_s, e.inception_real.sigma_s),
          e.inception_protocol + ", sFID" + e.inception_reference + " vs " + generated(s)};
}

MetricValue fd_dinov2(const GeneratedSamples& s, const EvalExtractors& e) {
  return {fid_against(s.dinov2_features, e.dinov2_real), e.dinov2_protocol + e.dinov2_reference + " vs " + generated(s)};
}

MetricValue inception_score_metric(const GeneratedSamples& s, const EvalExtractors& e) {
  const int64_t splits = std::min<int64_t>(kIsSplits, s.count);
  return {inception_score(s.inception_logits, splits).mean,
          e.inception_protocol + ", " + std::to_string(splits) + " splits of " + generated(s)};
}

}  // namespace

const std::vector<EvalMetric>& eval_metric_table() {
  // name, higher_is_better, needs_classifier, needs_inception, needs_reference, compute, needs_spatial, needs_dinov2
  static const std::vector<EvalMetric> table = {
      {"class_consistency", true, true, false, false, class_consistency},
      {"fid_classifier", false, true, false, false, fid_classifier},
      {"fid_inception", false, false, true, true, fid_inception},
      {"sfid", false, false, true, true, sfid, true},
      {"dinov2", false, false, false, false, fd_dinov2, false, true},
      {"is", true, false, true, false, inception_score_metric},
  };
  return table;
}

const EvalMetric* find_eval_metric(const std::string& name) {
  const auto& table = eval_metric_table();
  const auto it = std::find_if(table.begin(), table.end(), [&](const EvalMetric& m) { return m.name == name; });
  return it == table.end() ? nullptr : &*it;
}

const std::vector<std::string>& eval_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& m : eval_metric_table()) out.push_back(m.name);
    return out;
  }();
  return names;
}

bool higher_is_better(const std::string& metric) {
  const EvalMetric* m = find_eval_metric(metric);
  return m && m->higher_is_better;
}
bool uses_classifier(const std::string& metric) {
  const EvalMetric* m = find_eval_metric(metric);
  return m && m->needs_classifier;
}
bool uses_inception(const std::string& metric) {
  const EvalMetric* m = find_eval_metric(metric);
  return m && m->needs_inception;
}

}  // namespace hamgan
