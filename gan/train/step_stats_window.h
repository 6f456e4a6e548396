#pragma once
// The step numbers (losses, mean D logits) of the steps since the last read,
// summed on the device: the loop adds every step without waiting for the device,
// and the host reads them for a log row and before every checkpoint, which is
// also where a non-finite loss is caught (docs/training.md "Training speed").
#include <torch/torch.h>

#include <string>

#include "core/distributed/communicator.h"
#include "gan/train/steps.h"

namespace hamgan {

// Means over `steps` steps, on the host.
struct StepValues {
  double d_loss = 0, g_loss = 0, d_real = 0, d_fake = 0;
  int64_t steps = 0;
  bool finite() const;
  std::string describe() const;  // "d_loss nan, g_loss 0.93 (mean of the last 20 steps)"
};

class StepStatsWindow {
 public:
  void add(const StepStats& s);  // device additions only
  int64_t steps() const { return steps_; }
  // One device→host read of the means over the ranks of `comm` (every rank
  // calls it at the same step); the window keeps its sums.
  StepValues means(Communicator& comm) const;
  void clear();

 private:
  torch::Tensor sums_;  // (4): d_loss, g_loss, d_real, d_fake
  int64_t steps_ = 0;
};

}  // namespace hamgan
