#pragma once
// Interval hooks around the training loop: each completed step is offered to
// every hook in order (log row, sample grid, evaluation, checkpoint, ...), and
// each decides itself whether its interval is due. Hooks that generate images
// run under ScopedRngRestore, so no hook changes the training random stream: a
// run with grids and evaluation every step trains exactly like one with none.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/distributed/communicator.h"
#include "core/errors.h"
#include "core/progress.h"
#include "gan/report/run_log.h"
#include "gan/report/tensorboard.h"
#include "gan/train/grad_sync.h"
#include "gan/train/step_stats_window.h"
#include "gan/train/train_config.h"
#include "gan/train/train_state.h"

namespace hamgan {

// What the hooks of one run share. In a data-parallel job only the main rank
// (rank 0) writes: the log, TensorBoard, sample grids and checkpoints.
struct RunContext {
  RunContext(const TrainConfig& cfg, int64_t resume_step, bool main = true);
  const TrainConfig& cfg;
  std::string run_dir, checkpoint_dir;
  std::string last_checkpoint;  // newest checkpoint written or resumed from ("" before the first)
  int64_t last_checkpoint_step = -1;
  bool stop_requested = false;  // a stop signal arrived (on any rank): checkpoint this step, then end
  GradSync* sync = nullptr;     // set by the loop
  Communicator* comm = nullptr; // the job's process group; null in a single process
  bool main = true;             // rank 0 (or the only process): the one that writes
  std::unique_ptr<MetricsLog> log;        // null on the other ranks
  std::unique_ptr<TensorBoardWriter> tb;  // null without cfg.tensorboard, and on the other ranks
  std::unique_ptr<ProgressBar> bar;
  StepStatsWindow stats;  // the steps since the last log row, on the device (filled by the loop)
  bool last_step(const TrainState& state) const { return state.step >= cfg.steps; }
};

class TrainHook {
 public:
  virtual ~TrainHook() = default;
  virtual void after_step(TrainState& state, RunContext& run) = 0;
};
using TrainHooks = std::vector<std::unique_ptr<TrainHook>>;

// log row + bar, stop signal, checkpoint, sample grid, evaluation: the hooks of
// `hamgan train`, in that order. The checkpoint comes before the image-making
// hooks, so a failing evaluation never costs the steps since the last one.
TrainHooks standard_hooks(const TrainConfig& cfg);

std::unique_ptr<TrainHook> make_log_hook(const TrainConfig& cfg);
std::unique_ptr<TrainHook> make_grid_hook(const TrainConfig& cfg);
std::unique_ptr<TrainHook> make_eval_hook(const TrainConfig& cfg);
std::unique_ptr<TrainHook> make_stop_hook();  // reads the stop-signal flag (agreed across ranks)
std::unique_ptr<TrainHook> make_checkpoint_hook(const TrainConfig& cfg);
// Calls `fn` after every step (tests use it to inject faults or stop requests).
std::unique_ptr<TrainHook> make_callback_hook(std::function<void(TrainState&, RunContext&)> fn);

// Writes the state as the checkpoint of its step and marks it latest; throws the
// divergence error instead when a weight, or a loss since the last log row, is
// non-finite (a broken state is never saved).
// In a data-parallel job every rank calls it: the noise streams are gathered,
// rank 0 writes after a barrier, and every rank learns whether it succeeded.
void save_checkpoint(TrainState& state, RunContext& run);
// The same for checkpoints/best.pt (atomic, never pruned, not marked latest).
void save_best_checkpoint(TrainState& state, RunContext& run);
// A non-finite loss or weight: the state is broken and is never saved.
struct DivergenceError : Error {
  using Error::Error;
};
// The means of run.stats (over every rank with `comm`); throws the divergence error when one is non-finite.
StepValues read_step_values(const TrainState& state, const RunContext& run, Communicator* comm);
// "training diverged at step N (what); last good checkpoint: ... (continue from it with --resume ...)".
DivergenceError divergence_error(const TrainState& state, const RunContext& run, const std::string& what);

// After an error or a stop mid-run: writes the state of the last whole step
// (`step_whole` false means a step's updates were partly applied, so the state
// is not saved) unless it is already the newest checkpoint or non-finite.
// Returns what happened, for the end of the error line ("state at step N
// saved to ...; continue with --resume"). In a data-parallel job a peer may be
// gone, so rank 0 writes alone, without collectives (the other ranks' noise
// streams are reseeded on resume), and the other ranks write nothing.
std::string save_after_failure(TrainState& state, RunContext& run, bool step_whole);

}  // namespace hamgan
