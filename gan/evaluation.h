#pragma once
// Evaluation during training: class-consistency of the generator (fraction of
// class-balanced samples the Fashion-MNIST classifier assigns to the requested
// class) and FID on that classifier's features against the held-out real images.
#include "gan/generator.h"
#include "gan/run_log.h"
#include "gan/train_config.h"

namespace hamgan {

// Empty when evaluation does not apply (no classifier for this data). Runs g in eval mode.
MetricRow evaluate_during_training(Generator& g, const TrainConfig& cfg, int64_t step);

}  // namespace hamgan
