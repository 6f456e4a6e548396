#pragma once
// The training loop of `hamgan train` (architecture.md §1.8): per step,
// d_steps discriminator updates on fresh real batches and generated images,
// then one generator update, then the EMA update; metrics, grids,
// checkpoints and evaluations at their intervals; SIGINT/SIGTERM checkpoint and
// stop; a non-finite loss stops the run without touching the last good
// checkpoint.
#include <string>

#include "gan/train_config.h"

namespace hamgan {

struct TrainResult {
  int64_t step = 0;          // completed steps
  std::string checkpoint;    // the last checkpoint written (or resumed from)
  bool interrupted = false;  // stopped by SIGINT/SIGTERM
};

// Runs (or resumes) training into cfg.run_dir. Divergence throws hamgan::Error
// naming the step and the last good checkpoint.
TrainResult train(const TrainConfig& cfg);

// Asks a running train() to checkpoint and stop after its current step (what
// SIGINT/SIGTERM do); async-signal-safe.
void request_training_stop();

}  // namespace hamgan
