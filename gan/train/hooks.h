#pragma once
// Interval hooks around the training loop. After each completed step:
//   1. the caller's extra hooks (train()'s `extra_hooks`; tests inject faults
//      and stop requests there),
//   2. the loop agrees on the stop signal across ranks and sets run.stopping,
//   3. the standard hooks (standard_hooks), in this order: the log row and
//      progress bar; the checkpoint (at its interval, at the last step, and
//      when stopping); the sample grid; the evaluation (neither when stopping).
// Each hook decides itself whether its interval is due. The checkpoint comes
// before the image-making hooks, so a failing evaluation never costs the steps
// since the last one. Hooks that generate images run under ScopedRngRestore, so
// no hook changes the training random stream: a run with grids and evaluation
// every step trains exactly like one with none.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/distributed/communicator.h"
#include "core/errors.h"
#include "core/progress.h"
#include "core/run_paths.h"
#include "gan/eval/evaluation.h"
#include "gan/report/run_log.h"
#include "gan/report/tensorboard.h"
#include "gan/train/step_stats_window.h"
#include "gan/train/train_state.h"

namespace hamgan {

// What the hooks of one run share. In a data-parallel job only the main rank
// (rank 0) writes: the log, TensorBoard, sample grids and checkpoints.
struct RunContext {
  RunContext(const std::string& run_dir, int64_t steps, std::shared_ptr<Communicator> comm);
  RunPaths paths;
  int64_t steps;                 // the step the run ends at
  int64_t keep_checkpoints = 2;  // newest step checkpoints kept
  std::shared_ptr<Communicator> comm;  // the job's ranks; a LocalCommunicator in a single process (never null)
  bool main = true;                    // rank 0 (or the only process): the one that writes
  // Set by the loop before the standard hooks run: a stop signal arrived on some
  // rank (every rank agrees), so this step is checkpointed and the run ends.
  bool stopping = false;
  std::string last_checkpoint;  // newest checkpoint written or resumed from ("" before the first)
  int64_t last_checkpoint_step = -1;
  // The newest checkpoint from which a step has since succeeded: a good state for
  // certain, so never pruned, and the one to go back to when none succeeds.
  std::string proven_checkpoint;
  std::unique_ptr<MetricsLog> log;        // null on the other ranks
  std::unique_ptr<TensorBoardWriter> tb;  // null without tensorboard, and on the other ranks
  std::unique_ptr<ProgressBar> bar;
  StepStatsWindow stats;  // the steps since the last log row, on the device (filled by the loop)
  // Steps whose updates were skipped as non-finite, counted where the losses are read.
  int64_t max_nonfinite_steps = 0, nonfinite_steps = 0;
  bool last_step(const TrainState& state) const { return state.step >= steps; }
};

class TrainHook {
 public:
  virtual ~TrainHook() = default;
  virtual void after_step(TrainState& state, RunContext& run) = 0;
};
using TrainHooks = std::vector<std::unique_ptr<TrainHook>>;

// Each hook's own settings, derived from the run's config once (open_run). Every
// interval follows core/schedule.h: at each multiple of `every` and at the last step.
struct LogSettings {
  int64_t every = 50;
  double g_lr = 0, d_lr = 0;      // logged with every row
  int64_t images_per_step = 0;    // batch_size · d_steps, for img_per_s
  // The context blocks' names in the log, "g/ham16" (network, block, feature-map side); "" for `none`.
  std::string g_block_key, d_block_key;
};
struct CheckpointSettings {
  int64_t every = 1000;  // 0: only at the last step (and, as always, when stopping)
};
struct GridSettings {
  int64_t every = 1000;  // 0: only at the last step
  int64_t num_classes = 10, z_dim = 128;
  uint64_t seed = 0;
  int64_t standing_stats = 0;  // batches of kStandingBatchSize for G's BN statistics before each grid
};
struct EvalHookSettings {
  int64_t every = 0;        // 0: no evaluation at all, not even at the last step
  int64_t final_n = 0;      // samples at the last step (0: the evaluator's n)
  std::string best_metric;  // "" = no best checkpoint
  EvalShards shards;        // this rank's share of each evaluation
};
struct HookSettings {
  LogSettings log;
  CheckpointSettings checkpoint;
  GridSettings grid;
  EvalHookSettings eval;
};

// The standard hooks of `hamgan train`, in the order above; the evaluation only with an `evaluator`.
TrainHooks standard_hooks(const HookSettings& s, std::shared_ptr<Evaluator> evaluator);

std::unique_ptr<TrainHook> make_log_hook(const LogSettings& s);
std::unique_ptr<TrainHook> make_checkpoint_hook(const CheckpointSettings& s);
std::unique_ptr<TrainHook> make_grid_hook(const GridSettings& s);
std::unique_ptr<TrainHook> make_eval_hook(const EvalHookSettings& s, std::shared_ptr<Evaluator> evaluator);
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
// The means of run.stats over the ranks of `comm`; throws the divergence error when one is
// non-finite, or when the skipped non-finite steps exceed run.max_nonfinite_steps.
StepValues read_step_values(const TrainState& state, RunContext& run, Communicator& comm);
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
