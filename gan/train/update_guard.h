#pragma once
// Skipping an update that went non-finite (precision = bf16 and friends, with
// max_nonfinite_steps > 0). A forward pass writes buffers (batch-norm moving
// statistics, spectral norm's u) before anyone sees the loss, so the guard
// snapshots G's and D's buffers before an update and puts them back when the
// update is skipped: the state is then exactly what it was before it.
#include <torch/torch.h>

#include <vector>

#include "gan/train/train_state.h"

namespace hamgan {

class UpdateGuard {
 public:
  // Snapshots the buffers only when `enabled`; a disabled guard never skips.
  UpdateGuard(TrainState& state, bool enabled);
  // After backward and the gradient all-reduce: true when the loss and every gradient
  // of `m` are finite (one device sync). Otherwise zeroes the gradients, restores the
  // buffers and returns false: the caller then leaves the optimiser alone.
  bool update_is_finite(torch::nn::Module& m, const torch::Tensor& loss);

 private:
  bool enabled_;
  std::vector<torch::Tensor> buffers_, saved_;
};

}  // namespace hamgan
