#include "gan/train/trainer.h"

#include <iostream>
#include <optional>

#include "core/threads.h"
#include "core/device.h"
#include "core/dir_lock.h"
#include "gan/model/model_info.h"
#include "gan/train/data_parallel.h"
#include "gan/train/grad_sync.h"
#include "gan/train/run_setup.h"
#include "gan/train/steps.h"

namespace hamgan {
namespace {

// A step whose updates UpdateGuard skipped (max_nonfinite_steps > 0; the guard
// has already read the values from the device): counted, reported, and the end
// of the run once there are more than the config allows.
void count_skipped_step(const StepStats& s, const TrainState& state, const RunContext& run, int64_t& nonfinite_steps) {
  const torch::Tensor losses = torch::stack({s.d_loss, s.g_loss}).to(torch::kCPU, torch::kDouble);
  const std::string what = "d_loss " + json_number(losses[0].item<double>()) + ", g_loss " +
                           json_number(losses[1].item<double>());
  const int64_t allowed = run.cfg.max_nonfinite_steps;
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

}  // namespace

TrainResult train(const TrainConfig& cfg, TrainHooks extra_hooks) {
  cfg.validate();
  const DistEnv env = dist_env_from_environment();
  const bool main_rank = env.rank == 0;
  const torch::Device device = rank_device(cfg.device, env);
  apply_thread_count(cfg.threads);
  std::optional<DirectoryLock> lock;  // one run per directory, for the run's life; rank 0 writes it
  if (main_rank) lock.emplace(cfg.run_dir);
  StopSignalGuard signals;                // from here on a signal stops the run cleanly
  ProgressEnabledScope progress(cfg.progress && main_rank);
  if (main_rank) remove_stale_files(cfg);
  const std::string resume_from = checkpoint_to_resume(cfg);
  auto dataset = open_training_data(cfg);
  DataParallel dp = join_data_parallel(cfg, env, device);
  // Every file a run needs is opened now, not at its first evaluation; rank 0
  // first, so that a missing classifier is trained once while the others wait.
  if (main_rank) prepare_run_evaluation(cfg, device);
  if (dp.comm) dp.comm->barrier("waiting for rank 0 to prepare the evaluation");
  if (!main_rank) prepare_run_evaluation(cfg, device);
  TrainState state(cfg, device, dp.rank(), dp.world_size());
  if (!resume_from.empty()) resume_state(state, cfg, resume_from);
  const Precision precision = resolve_precision(cfg.precision, cfg.channels_last, device);
  apply_precision(precision, state);
  attach_data_parallel(dp, state, cfg);
  if (main_rank) {
    write_run_files(cfg, state, !resume_from.empty(), dp.world_size());
    std::cerr << "train: " << dataset->describe() << "; device " << device << "; G " << count_parameters(*state.g)
              << " parameters, D " << count_parameters(*state.d) << "; run dir " << cfg.run_dir << "\n";
  }

  RunContext run(cfg, resume_from.empty() ? -1 : state.step, main_rank);
  run.comm = dp.comm.get();
  run.last_checkpoint = resume_from;
  if (!resume_from.empty()) run.last_checkpoint_step = state.step;
  TrainResult result;
  result.main_rank = main_rank;
  result.checkpoint = resume_from;
  if (state.step >= cfg.steps) {
    if (main_rank) std::cerr << "train: already at step " << state.step << " of " << cfg.steps << "; nothing to do\n";
    result.step = state.step;
    return result;
  }
  DataLoader loader(dataset, loader_options(cfg, dp.rank(), dp.world_size()), state.data_position);
  TrainHooks hooks = std::move(extra_hooks);
  for (auto& h : standard_hooks(cfg)) hooks.push_back(std::move(h));
  StepConfig step_cfg{cfg.loss, cfg.d_steps, cfg.batch_size / dp.world_size(), precision};
  step_cfg.accumulate = cfg.accumulate;
  step_cfg.skip_nonfinite = cfg.max_nonfinite_steps > 0;
  if (cfg.noise_streams == "global") {
    step_cfg.noise_slice = dp.rank();
    step_cfg.noise_slices = dp.world_size();
  }
  const EmaSchedule ema{cfg.ema_decay, cfg.ema_start};
  GradSync& sync = *dp.sync;
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
      if (dp.comm && !cfg.sync_bn) share_rank0_buffers(*dp.comm, *state.g);
      ++state.step;
      state.data_position = loader.position();
      ema_step(state, ema);
      step_whole = true;
      // Every rank agrees on a skipped update (the guard has synchronised already).
      if (dp.comm && step_cfg.skip_nonfinite) agree_on_skipped_updates(*dp.comm, stats);
      if (stats.skipped_updates > 0)
        count_skipped_step(stats, state, run, result.nonfinite_steps);
      else
        run.stats.add(stats);  // read at the next log row or checkpoint, not now
      for (auto& hook : hooks) hook->after_step(state, run);
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
