#pragma once
// What one training update reads and changes, and nothing of the run around it: the
// networks, the optimisers, the EMA, the objective with its state, the noise stream
// for z and fake labels, and the number of completed steps. The run's TrainState
// extends it with the data position, the best score, the run's identity and the rows
// of other ranks, and saves it all; a step test builds a StepState alone.
#include <torch/torch.h>

#include <memory>

#include "gan/model/discriminator.h"
#include "gan/model/generator.h"
#include "gan/model/model_config.h"
#include "gan/step/ema.h"
#include "gan/step/fused_adam.h"
#include "gan/step/objective.h"

namespace hamgan {

// Adam with TTUR (two learning rates): the optimiser of G and of D.
struct AdamSettings {
  double g_lr = 1e-4, d_lr = 4e-4;
  double beta1 = 0.0, beta2 = 0.999, eps = 1e-8;
};

class StepState {
 public:
  // Fresh networks, in this order: G, D and (with `ema`) G_ema, drawn from the global
  // generator as it stands; G_ema then starts as a copy of G. `noise` draws z and labels.
  StepState(const ModelConfig& model, torch::Device device, const AdamSettings& adam, bool ema,
            const ObjectiveConfig& objective, at::Generator noise);

  // Learning rates of both optimisers (configured values win over stored ones on resume).
  void set_learning_rates(double g_lr, double d_lr);
  bool all_finite() const;  // every parameter of G and D

  ModelConfig model;
  torch::Device device;
  Generator g{nullptr}, g_ema{nullptr};     // g_ema null without EMA
  std::shared_ptr<EmaUpdater> ema_updater;  // G → G_ema tensor pairs, made at the first ema_step
  Discriminator d{nullptr};
  std::unique_ptr<FusedAdam> g_opt, d_opt;
  int64_t step = 0;        // completed steps
  int64_t world_size = 1;  // ranks of the job: the objective's means are over all of them
  at::Generator noise;     // z and fake labels (CPU, so CPU and CUDA runs draw the same)
  Objective objective;     // the loss and the recipe's terms, with their state
};

}  // namespace hamgan
