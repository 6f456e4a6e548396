#pragma once
// Skipping an update that went non-finite (precision = bf16 and friends, with
// max_nonfinite_steps > 0), decided on the device. A forward pass writes buffers
// (batch-norm moving statistics, spectral norm's u) before anyone sees the loss,
// so the guard snapshots G's and D's buffers before an update and puts them back
// where the update is skipped: the state is then exactly what it was before it.
// Nothing here reads a value on the host; the trainer counts skipped steps
// where it reads the losses anyway.
#include <torch/torch.h>

#include <vector>

#include "gan/step/grad_sync.h"
#include "gan/step/step_state.h"

namespace hamgan {

class UpdateGuard {
 public:
  // Snapshots the buffers only when `enabled`; a disabled guard never skips.
  UpdateGuard(StepState& state, bool enabled);
  bool enabled() const { return enabled_; }
  // After backward and the gradient all-reduce: a float32 device scalar, 1 where
  // the loss or a gradient of `m` is non-finite on some rank, else 0 (the ranks
  // agree through `sync`). Where it is 1 the buffers are put back; the caller
  // hands it to FusedAdam::step_unless.
  torch::Tensor nonfinite(torch::nn::Module& m, const torch::Tensor& loss, GradSync& sync);

 private:
  bool enabled_;
  std::vector<torch::Tensor> buffers_, saved_;
};

}  // namespace hamgan
