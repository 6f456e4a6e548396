#include "gan/evaluation.h"

#include <map>

#include "gan/class_consistency.h"
#include "metrics/classifier_training.h"

namespace hamgan {

MetricRow evaluate_during_training(Generator& g, const TrainConfig& cfg, int64_t step) {
  if (cfg.eval_every <= 0 || cfg.classifier.empty()) return {};
  // Loaded (or built) once per process and kept for later evaluations.
  static std::map<std::string, FeatureClassifier> cache;
  const auto device = g->parameters().front().device();
  auto it = cache.find(cfg.classifier);
  if (it == cache.end()) it = cache.emplace(cfg.classifier, ensure_classifier(cfg.classifier, device)).first;
  // The same z for every evaluation of a run, so the curve shows the generator changing, not the noise.
  const ClassConsistency cc = class_consistency(g, it->second, cfg.eval_n, cfg.seed + 777);
  return {{"class_consistency", cc.overall}};
}

}  // namespace hamgan
