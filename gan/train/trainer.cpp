#include "gan/train/trainer.h"

#include <iostream>

#include "core/stop_signal.h"
#include "gan/train/data_parallel.h"
#include "gan/train/open_run.h"
#include "gan/step/steps.h"

namespace hamgan {
namespace {

constexpr int64_t kStopAgreementEvery = 10;

// A step's real batches, all read before its first update: a loader error
// (a corrupt image met mid-run) then leaves the state at the last whole step.
BatchSource prefetched_batches(DataLoader& loader, int64_t count) {
  auto batches = std::make_shared<std::vector<Batch>>();
  for (int64_t i = 0; i < count; ++i) batches->push_back(loader.next());
  auto at = std::make_shared<size_t>(0);
  return [batches, at] { return (*batches)[(*at)++]; };
}

// The steps until the last or until a stop every rank agreed on (then true).
// `step_whole` is false while a step's updates are partly applied.
bool run_steps(OpenRun& r, bool& step_whole) {
  TrainState& state = *r.state;
  RunContext& run = *r.run;
  Communicator& comm = *r.comm;
  while (state.step < run.steps) {
    const BatchSource batches = prefetched_batches(*r.loader, r.step.d_steps);
    step_whole = false;
    StepStats stats;
    d_step(state, batches, r.step, *r.sync, stats);
    g_step(state, r.step, *r.sync, stats);
    if (r.share_rank0_buffers) share_rank0_buffers(comm, *state.g);
    ++state.step;
    state.data_position = r.loader->position();
    ema_step(state, r.ema);
    step_whole = true;
    run.stats.add(stats);  // read at the next log row or checkpoint, not now
    for (auto& hook : r.extra_hooks) hook->after_step(state, run);
    // Every rank stops at the same step: a signal, or the time limit, on any of
    // them. Agreeing makes the host wait for the queued work, so a job of several
    // ranks agrees every kStopAgreementEvery steps only (docs/training.md, "Stopping").
    if (comm.world_size() == 1 || state.step % kStopAgreementEvery == 0)
      run.stopping = comm.any(stop_requested() || r.budget.exhausted(), "the stop agreement");
    for (auto& hook : r.standard_hooks) hook->after_step(state, run);
    if (run.stopping) return true;
    r.budget.step_done();
  }
  return false;
}

}  // namespace

TrainResult train(const TrainConfig& cfg, TrainHooks extra_hooks) {
  const std::unique_ptr<OpenRun> open = open_run(cfg, std::move(extra_hooks));
  TrainState& state = *open->state;
  RunContext& run = *open->run;
  TrainResult result;
  result.main_rank = run.main;
  result.checkpoint = open->resumed_from;
  if (open->finished()) {
    result.step = state.step;
    result.nonfinite_steps = run.nonfinite_steps;
    if (open->owed_hooks.empty()) {
      if (run.main) std::cerr << "train: already at step " << state.step << " of " << run.steps << "; nothing to do\n";
      return result;
    }
    // Stopped or killed after the last checkpoint and before its grid or evaluation: finish those.
    if (run.main) std::cerr << "train: at step " << state.step << " of " << run.steps << "; finishing its grid and "
                            << "evaluation, which the last job did not\n";
    try {
      for (auto& hook : open->owed_hooks) hook->after_step(state, run);
    } catch (const Interrupted&) {
      result.interrupted = true;  // still owed; the checkpoint is there
    }
    if (run.tb) run.tb->flush();
    return result;
  }
  bool step_whole = true;  // false while a step's updates are partly applied
  try {
    result.interrupted = run_steps(*open, step_whole);
    result.time_limit_reached = result.interrupted && !stop_requested() && open->budget.exhausted();
    if (state.step >= run.steps) {
      // The last step's checkpoint, grid and evaluation are done: a stop that came during them
      // finds the run finished, so it exits as finished, not asking to be requeued.
      forget_stop_request();
      result.interrupted = result.time_limit_reached = false;
    }
  } catch (const Interrupted&) {
    // A stop during a long phase (evaluation, sample grid): keep the promise of a checkpoint.
    run.bar->finish();
    save_after_failure(state, run, step_whole);
    result.interrupted = true;
    result.step = state.step;
    result.nonfinite_steps = run.nonfinite_steps;
    result.checkpoint = run.last_checkpoint;
    return result;
  } catch (const DivergenceError&) {
    throw;  // the state is broken: the last good checkpoint stays the newest
  } catch (const CheckpointError&) {
    throw;  // writing the state is what failed (a full disk): the message names the last good one
  } catch (const c10::Error& e) {
    run.bar->finish();
    throw Error(e.what_without_backtrace() + ("; " + save_after_failure(state, run, step_whole)));
  } catch (const std::exception& e) {
    run.bar->finish();
    throw Error(e.what() + ("; " + save_after_failure(state, run, step_whole)));
  }
  run.bar->finish();
  if (run.tb) run.tb->flush();
  result.step = state.step;
  result.nonfinite_steps = run.nonfinite_steps;
  result.checkpoint = run.last_checkpoint;
  return result;
}

}  // namespace hamgan
