#include "gan/train/trainer.h"

#include <iostream>

#include "gan/train/data_parallel.h"
#include "gan/train/open_run.h"
#include "gan/train/steps.h"

namespace hamgan {
namespace {

// A step whose updates UpdateGuard skipped (max_nonfinite_steps > 0; the guard
// has already read the values from the device): counted, reported, and the end
// of the run once there are more than the config allows.
void count_skipped_step(const StepStats& s, const TrainState& state, const RunContext& run, int64_t allowed,
                        int64_t& nonfinite_steps) {
  const torch::Tensor losses = torch::stack({s.d_loss, s.g_loss}).to(torch::kCPU, torch::kDouble);
  const std::string what = "d_loss " + json_number(losses[0].item<double>()) + ", g_loss " +
                           json_number(losses[1].item<double>());
  if (++nonfinite_steps > allowed)
    throw divergence_error(state, run, what + "; " + std::to_string(nonfinite_steps) +
                                           " non-finite steps, more than max_nonfinite_steps = " +
                                           std::to_string(allowed));
  // Skipped updates leave the weights as they were; anything else is a broken state.
  if (!state.all_finite()) throw divergence_error(state, run, what + "; non-finite weights");
  if (run.main)
    std::cerr << "train: step " << state.step << " non-finite (" << what << "); its " << s.skipped_updates
              << " non-finite update(s) skipped (" << nonfinite_steps << " of max_nonfinite_steps = " << allowed
              << ")\n";
}

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
bool run_steps(OpenRun& r, int64_t& nonfinite_steps, bool& step_whole) {
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
    // Every rank agrees on a skipped update (the guard has synchronised already).
    if (r.step.skip_nonfinite) agree_on_skipped_updates(comm, stats);
    if (stats.skipped_updates > 0)
      count_skipped_step(stats, state, run, r.max_nonfinite_steps, nonfinite_steps);
    else
      run.stats.add(stats);  // read at the next log row or checkpoint, not now
    for (auto& hook : r.extra_hooks) hook->after_step(state, run);
    // Every rank stops at the same step: a signal, or the time limit, on any of them.
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
    if (run.main) std::cerr << "train: already at step " << state.step << " of " << run.steps << "; nothing to do\n";
    result.step = state.step;
    return result;
  }
  bool step_whole = true;  // false while a step's updates are partly applied
  try {
    result.interrupted = run_steps(*open, result.nonfinite_steps, step_whole);
    result.time_limit_reached = result.interrupted && !stop_requested() && open->budget.exhausted();
  } catch (const Interrupted&) {
    // A stop during a long phase (evaluation, sample grid): keep the promise of a checkpoint.
    run.bar->finish();
    save_after_failure(state, run, step_whole);
    result.interrupted = true;
    result.step = state.step;
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
  result.checkpoint = run.last_checkpoint;
  return result;
}

}  // namespace hamgan
