#pragma once
// The step's parts of a run's config, resolved once and handed down narrow: the
// optimisers', the objective's and the step functions' settings.
#include "gan/step/steps.h"
#include "gan/train/train_config.h"

namespace hamgan {

AdamSettings adam_settings(const TrainConfig& cfg);
ObjectiveConfig objective_config(const TrainConfig& cfg);
// For `local_batch` images per update on this rank (the slice is set by the caller in a job).
StepConfig step_config(const TrainConfig& cfg, int64_t local_batch, const Precision& precision);

}  // namespace hamgan
