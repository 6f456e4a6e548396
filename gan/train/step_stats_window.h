#pragma once
// The step numbers (losses, mean D logits) of the steps since the last read,
// summed on the device: the loop adds every step without waiting for the device,
// and the host reads them for a log row and before every checkpoint, which is
// also where a non-finite loss is caught (docs/training.md "Training speed").
#include <torch/torch.h>

#include <string>

#include "core/distributed/communicator.h"
#include "gan/step/steps.h"

namespace hamgan {

// Means over `steps` steps, on the host.
struct StepValues {
  double d_loss = 0, g_loss = 0, d_real = 0, d_fake = 0;
  int64_t steps = 0;           // steps averaged: those whose updates were applied
  int64_t nonfinite_steps = 0; // steps with a skipped update since the last take_nonfinite_steps
  bool finite() const;
  std::string describe() const;  // "d_loss nan, g_loss 0.93 (mean of the last 20 steps)"
};

class StepStatsWindow {
 public:
  // Device additions only; a step with a skipped update (s.skipped) is counted
  // as non-finite and left out of the means.
  void add(const StepStats& s);
  int64_t steps() const { return steps_; }
  // One device→host read of the means over the ranks of `comm` (every rank
  // calls it at the same step), and of the non-finite steps not yet taken
  // (the ranks agree on those already); the window keeps its sums.
  StepValues means(Communicator& comm);
  void clear();
  // Steps whose updates were applied since the last call (one device read; the
  // ranks agree on every skip). Kept apart from the log rows' window: a
  // checkpoint asks whether any step succeeded since the previous checkpoint.
  int64_t take_applied_steps();

 private:
  torch::Tensor applied_;    // applied steps of guarded steps, on the device, until taken
  int64_t unguarded_ = 0;    // steps without a skip decision (always applied), until taken
  torch::Tensor sums_;       // (5): d_loss, g_loss, d_real, d_fake, steps averaged
  torch::Tensor nonfinite_;  // steps with a skipped update, until read by means
  int64_t steps_ = 0;
};

}  // namespace hamgan
