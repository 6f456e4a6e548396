#pragma once
// `hamgan train` (docs/training.md): open the run (gan/train/open_run.h), then
// per step d_steps discriminator updates, one generator update and the EMA
// update (gan/step/steps.h), then the hooks in the order gan/train/hooks.h
// gives. SIGINT/SIGTERM/SIGHUP/SIGUSR1 and the time limit checkpoint and stop;
// a non-finite loss stops the run without touching the last good checkpoint.
#include <string>

#include "gan/train/hooks.h"
#include "core/stop_signal.h"
#include "gan/train/train_config.h"

namespace hamgan {

struct TrainResult {
  int64_t step = 0;          // completed steps
  std::string checkpoint;    // the last checkpoint written (or resumed from)
  bool interrupted = false;  // stopped by a signal (SIGINT, SIGTERM, SIGHUP, SIGUSR1) or the time limit
  bool time_limit_reached = false;  // stopped, checkpointed, before time_limit ran out
  bool main_rank = true;     // false on the ranks of a data-parallel job that print nothing
  int64_t nonfinite_steps = 0;  // steps skipped for non-finite values (at most max_nonfinite_steps)
};

// Runs (or resumes) training into cfg.run_dir; with torchrun's or SLURM's
// variables set (or under `hamgan train --nproc`), as one rank of a
// data-parallel job (gan/train/data_parallel.h). `extra_hooks` run after each
// step before the stop agreement and the standard hooks. Divergence throws hamgan::Error naming the
// step and the last good checkpoint.
TrainResult train(const TrainConfig& cfg, TrainHooks extra_hooks = {});

}  // namespace hamgan
