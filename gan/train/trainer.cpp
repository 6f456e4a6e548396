#include "gan/train/trainer.h"

#include <cmath>
#include <iostream>

#include "core/threads.h"
#include "core/device.h"
#include "core/dir_lock.h"
#include "gan/model/model_info.h"
#include "gan/train/grad_sync.h"
#include "gan/train/run_setup.h"
#include "gan/train/steps.h"

namespace hamgan {
namespace {

// The step's numbers on the host; a non-finite loss ends the run here.
StepValues read_values(const StepStats& s, const TrainState& state, const RunContext& run) {
  const torch::Tensor nums = torch::stack({s.d_loss, s.g_loss, s.d_real, s.d_fake}).to(torch::kCPU, torch::kDouble);
  const double* v = nums.data_ptr<double>();
  if (!std::isfinite(v[0]) || !std::isfinite(v[1]))
    throw divergence_error(state, run, "d_loss " + json_number(v[0]) + ", g_loss " + json_number(v[1]));
  return {v[0], v[1], v[2], v[3]};
}

// A step's real batches, all read before its first update: a loader error
// (a corrupt image met mid-run) then leaves the state at the last whole step.
BatchSource prefetched_batches(DataLoader& loader, int64_t count) {
  auto batches = std::make_shared<std::vector<Batch>>();
  for (int64_t i = 0; i < count; ++i) batches->push_back(loader.next());
  auto at = std::make_shared<size_t>(0);
  return [batches, at] { return (*batches)[(*at)++]; };
}

}  // namespace

TrainResult train(const TrainConfig& cfg, TrainHooks extra_hooks) {
  cfg.validate();
  const torch::Device device = resolve_device(cfg.device);
  apply_thread_count(cfg.threads);
  const DirectoryLock lock(cfg.run_dir);  // one run per directory, for the run's life
  StopSignalGuard signals;                // from here on a signal stops the run cleanly
  ProgressEnabledScope progress(cfg.progress);
  remove_stale_files(cfg);
  const std::string resume_from = checkpoint_to_resume(cfg);
  auto dataset = open_training_data(cfg);
  prepare_run_evaluation(cfg, device);  // every file a run needs is opened now, not at its first evaluation
  TrainState state(cfg, device);
  if (!resume_from.empty()) resume_state(state, cfg, resume_from);
  write_run_files(cfg, state, !resume_from.empty());
  std::cerr << "train: " << dataset->describe() << "; device " << device << "; G " << count_parameters(*state.g)
            << " parameters, D " << count_parameters(*state.d) << "; run dir " << cfg.run_dir << "\n";

  RunContext run(cfg, resume_from.empty() ? -1 : state.step);
  run.last_checkpoint = resume_from;
  if (!resume_from.empty()) run.last_checkpoint_step = state.step;
  TrainResult result;
  result.checkpoint = resume_from;
  if (state.step >= cfg.steps) {
    std::cerr << "train: already at step " << state.step << " of " << cfg.steps << "; nothing to do\n";
    result.step = state.step;
    return result;
  }
  DataLoader loader(dataset, loader_options(cfg), state.data_position);
  TrainHooks hooks = std::move(extra_hooks);
  for (auto& h : standard_hooks(cfg)) hooks.push_back(std::move(h));
  const StepConfig step_cfg{cfg.loss, cfg.d_steps, cfg.batch_size, Precision{}};
  const EmaSchedule ema{cfg.ema_decay, cfg.ema_start};
  NoSync sync;
  run.sync = &sync;
  run.bar = std::make_unique<ProgressBar>("train", cfg.steps - state.step, "step");
  state.g->train();
  state.d->train();
  bool step_whole = true;  // false while a step's updates are partly applied
  try {
    while (state.step < cfg.steps) {
      const BatchSource batches = prefetched_batches(loader, cfg.d_steps);
      step_whole = false;
      StepStats stats;
      d_step(state, batches, step_cfg, sync, stats);
      g_step(state, step_cfg, sync, stats);
      ++state.step;
      state.data_position = loader.position();
      ema_step(state, ema);
      step_whole = true;
      const StepValues values = read_values(stats, state, run);
      for (auto& hook : hooks) hook->after_step(state, values, run);
      if (run.stop_requested) {
        result.interrupted = true;
        break;
      }
    }
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
