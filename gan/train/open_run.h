#pragma once
// Everything a training run resolves before its first step, resolved once from
// its config and owned for the run's life: the ranks of the job, the device
// and precision, the state (fresh or resumed), the data, the step settings,
// the evaluator and the hooks, each hook with its own narrow settings. Nothing
// after open_run reads the TrainConfig.
#include <memory>
#include <optional>
#include <string>

#include "core/dir_lock.h"
#include "core/distributed/communicator.h"
#include "core/progress.h"
#include "core/stop_signal.h"
#include "data/loader.h"
#include "gan/eval/evaluation.h"
#include "gan/step/grad_sync.h"
#include "gan/train/hooks.h"
#include "gan/step/steps.h"
#include "gan/train/time_budget.h"
#include "gan/train/train_config.h"
#include "gan/train/train_state.h"

namespace hamgan {

// Members are declared in the order they are opened, so they close in reverse:
// the hooks and the loader first, the stop-signal handlers and the directory lock last.
struct OpenRun {
  std::optional<DirectoryLock> lock;  // one run per directory, for the run's life; rank 0 holds it
  std::optional<StopSignalGuard> signals;  // from here on a signal stops the run cleanly
  std::optional<ProgressEnabledScope> progress;
  torch::Device device{torch::kCPU};
  std::shared_ptr<Communicator> comm;  // a LocalCommunicator in a single process
  std::unique_ptr<GradSync> sync;      // NoSync, or the bucketed all-reduce over comm
  std::shared_ptr<Dataset> dataset;
  std::shared_ptr<Evaluator> evaluator;  // null without evaluation
  std::unique_ptr<TrainState> state;
  std::string resumed_from;  // the checkpoint resumed from ("" for a fresh run)
  std::unique_ptr<RunContext> run;
  // Set only when there are steps to run (state->step < run->steps):
  std::unique_ptr<DataLoader> loader;
  StepConfig step;
  EmaSchedule ema;
  bool share_rank0_buffers = true;  // G's buffers from rank 0 after each step (off with sync_bn)
  TrainHooks extra_hooks;     // the caller's, run before the stop agreement (gan/train/hooks.h)
  TrainHooks standard_hooks;  // log, checkpoint, grid, evaluation
  // Set only when the run is already at its last step: the grid and evaluation that its
  // checkpoint was written before and that have not happened (gan/train/owed_hooks.h).
  TrainHooks owed_hooks;
  TimeBudget budget;          // time_limit, counted from open_run's start

  bool finished() const { return state->step >= run->steps; }
};

// Validates `cfg` and opens the run it describes in cfg.run_dir (or resumes it
// with cfg.resume), as one rank of a data-parallel job when the launcher's
// variables say so. Throws ConfigError, DataError, CheckpointError or PeerError
// with one line naming the cause; nothing is left open then.
std::unique_ptr<OpenRun> open_run(const TrainConfig& cfg, TrainHooks extra_hooks = {});

}  // namespace hamgan
