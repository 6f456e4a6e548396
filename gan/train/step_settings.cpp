#include "gan/train/step_settings.h"

namespace hamgan {

AdamSettings adam_settings(const TrainConfig& cfg) { return {cfg.g_lr, cfg.d_lr, cfg.beta1, cfg.beta2, cfg.adam_eps}; }

ObjectiveConfig objective_config(const TrainConfig& cfg) { return {cfg.loss, cfg.recipe}; }

StepConfig step_config(const TrainConfig& cfg, int64_t local_batch, const Precision& precision) {
  StepConfig s;
  s.d_steps = cfg.d_steps;
  s.batch_size = local_batch;
  s.precision = precision;
  s.accumulate = cfg.accumulate;
  s.skip_nonfinite = cfg.max_nonfinite_steps > 0;
  return s;
}

}  // namespace hamgan
