#pragma once
// One training step in three small functions, shaped like BigGAN-PyTorch's
// train_fns.GAN_training_function: d_step runs `d_steps` discriminator updates
// on fresh real batches and generated images, g_step one generator update
// through a frozen D, ema_step the EMA of G's weights; each update may be split
// into `accumulate` micro-batches. z and fake labels come from the state's own
// noise stream, drawn for the whole batch at once (so accumulate does not change
// them); all values stay on the device. What the update optimises is the state's
// Objective (gan/step/objective.h): the step never knows which terms are on.
#include <torch/torch.h>

#include <functional>

#include "data/loader.h"
#include "gan/step/grad_sync.h"
#include "gan/step/micro_batch.h"
#include "gan/step/precision.h"
#include "gan/step/step_state.h"

namespace hamgan {

// Device scalars of the last D update and the G update (no host sync).
struct StepStats {
  torch::Tensor d_loss, g_loss, d_real, d_fake;  // d_real/d_fake: mean D logits
  // skip_nonfinite: updates not applied for non-finite values, a float32 device
  // scalar read with the losses by the trainer; else undefined.
  torch::Tensor skipped;
};

// The phases of d_step and g_step, in order. The noise draw belongs to the
// forward phase; the gradient all-reduce and the finiteness check to the optimiser's.
enum StepPhase : size_t {
  kDForward,  // G(z) without gradients, D(real ‖ fake), D loss
  kDBackward,
  kDOptimiser,
  kGForward,  // D(G(z)), G loss
  kGBackward,
  kGOptimiser,
  kStepPhaseCount
};
const char* step_phase_name(size_t phase);  // "d_forward", ..., "g_optimiser"

// The one seam in the step functions: told where each phase ends, under
// gradient accumulation once per micro-batch. `hamgan bench train` times and
// counts the trainer's own steps through it; training passes none.
struct PhaseMarks {
  virtual ~PhaseMarks() = default;
  virtual void phase_done(StepPhase phase) = 0;
};

struct StepConfig {
  int64_t d_steps = 1;     // D updates per G update
  int64_t batch_size = 64; // images per D and per G update
  Precision precision;
  // Micro-batches per update (gradient accumulation): each takes batch/accumulate
  // images and adds loss/accumulate to the gradients; data-parallel gradients are
  // reduced once, during the last micro-batch's backward pass.
  int64_t accumulate = 1;
  // noise_streams = "global": every rank draws the whole global batch's z, labels and
  // augmentation from one shared stream and keeps its slice, so the images seen do
  // not depend on the world size.
  BatchSlice slice;
  // Check each update's loss and gradients and skip it when non-finite (gan/step/update_guard.h).
  bool skip_nonfinite = false;
  PhaseMarks* marks = nullptr;  // not owned; null outside the bench
};

struct EmaSchedule {
  double decay = 0.9999;
  int64_t start = 1000;  // G updates before which the EMA is a plain copy
};

using BatchSource = std::function<Batch()>;

// z ~ N(0, I) (n, z_dim) and uniform fake labels (n,), drawn in that order from
// state.noise, on state.device (this rank's slice under global noise streams).
std::pair<torch::Tensor, torch::Tensor> draw_noise(StepState& state, int64_t n, const StepConfig& cfg = {});

void d_step(StepState& state, const BatchSource& next_batch, const StepConfig& cfg, GradSync& sync, StepStats& stats);
void g_step(StepState& state, const StepConfig& cfg, GradSync& sync, StepStats& stats);
// Uses state.step as the number of completed G updates.
void ema_step(StepState& state, const EmaSchedule& schedule);

}  // namespace hamgan
