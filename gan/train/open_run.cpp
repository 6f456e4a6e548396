#include "gan/train/open_run.h"

#include <iostream>

#include "core/device.h"
#include "core/threads.h"
#include "data/order_stats.h"
#include "gan/model/model_info.h"
#include "gan/train/config_agreement.h"
#include "gan/train/data_parallel.h"
#include "gan/train/owed_hooks.h"
#include "gan/train/resume_check.h"
#include "gan/train/run_setup.h"
#include "gan/train/step_settings.h"

namespace hamgan {
namespace {

// This rank's share of each evaluation and how the shares meet; a single
// process evaluates alone, with nothing to gather.
EvalShards eval_shards(const std::shared_ptr<Communicator>& group) {
  EvalShards shards;
  shards.rank = group->rank();
  shards.world = group->world_size();
  if (shards.world > 1) {
    shards.gather = [group](const torch::Tensor& t) {
      return torch::cat(group->all_gather(t, "gathering evaluation features"));
    };
    shards.share = [group](const torch::Tensor& t) {  // all_gather moves to the backend's device (NCCL: CUDA)
      return group->all_gather(t, "sharing rank 0's evaluation metrics").front();
    };
  }
  return shards;
}

HookSettings hook_settings(const TrainConfig& cfg, const std::shared_ptr<Communicator>& comm) {
  HookSettings s;
  s.log.every = cfg.log_every;
  s.log.g_lr = cfg.g_lr;
  s.log.d_lr = cfg.d_lr;
  s.log.images_per_step = cfg.batch_size * cfg.d_steps;
  const std::string side = std::to_string(cfg.model.context_side());
  if (cfg.model.g_block.name != "none") s.log.g_block_key = "g/" + cfg.model.g_block.name + side;
  if (cfg.model.d_block.name != "none") s.log.d_block_key = "d/" + cfg.model.d_block.name + side;
  s.checkpoint.every = cfg.checkpoint_every;
  s.grid.every = cfg.sample_every;
  s.grid.num_classes = cfg.model.num_classes;
  s.grid.z_dim = cfg.model.z_dim;
  s.grid.seed = cfg.seed;
  s.grid.standing_stats = cfg.standing_stats;
  s.eval.every = cfg.eval_every;
  s.eval.final_n = cfg.eval_final_n;
  s.eval.best_metric = resolved_best_metric(cfg);
  s.eval.shards = eval_shards(comm);
  return s;
}

JoinSettings join_settings(const TrainConfig& cfg) {
  JoinSettings s;
  s.batch_size = cfg.batch_size;
  s.accumulate = cfg.accumulate;
  s.backend = cfg.dist_backend;
  s.timeout = std::chrono::seconds(cfg.dist_timeout);
  s.run_dir = cfg.run_dir;
  return s;
}

}  // namespace

std::unique_ptr<OpenRun> open_run(const TrainConfig& cfg, TrainHooks extra_hooks) {
  cfg.validate();
  const DistEnv env = dist_env_from_environment();
  const bool main_rank = env.rank == 0;
  auto open = std::make_unique<OpenRun>();
  OpenRun& r = *open;
  r.budget = TimeBudget(cfg.time_limit);
  r.device = rank_device(cfg.device, env);
  use_device(r.device);  // before any CUDA work: streams, syncs and NCCL then use this rank's GPU
  // Resolved before anything is opened, so a device without bf16 leaves no run directory behind.
  const Precision precision = resolve_precision(cfg.precision, cfg.channels_last, r.device);
  if (const std::string slow = bf16_speed_warning(precision, cpu_flags()); main_rank && !slow.empty())
    std::cerr << "train: warning: " << slow << "\n";
  apply_thread_count(cfg.threads);
  // The data are checked before the run directory exists, so bad data leave nothing behind. Rank 0's
  // view of the shuffle windows on every rank, so that all ranks agree to go on or stop.
  r.dataset = open_training_data(cfg);
  check_window_randomness(*r.dataset, loader_options(cfg, r.device, 0, std::max<int64_t>(env.world_size, 1)));
  const RunPaths paths(cfg.run_dir);
  if (main_rank) r.lock.emplace(cfg.run_dir);
  r.signals.emplace();
  r.progress.emplace(cfg.progress && main_rank);
  if (main_rank) remove_stale_files(paths);
  r.resumed_from = checkpoint_to_resume(cfg);
  const bool resumed = !r.resumed_from.empty();
  r.comm = join_data_parallel(env, r.device, join_settings(cfg));
  check_ranks_agree(cfg.config_text, *r.comm, r.device);  // before any collective on the networks
  r.sync = grad_sync_for(r.comm);
  const int64_t rank = r.comm->rank(), world = r.comm->world_size();
  r.evaluator = open_run_evaluator(eval_settings(cfg), cfg.eval_every, r.device, *r.comm);
  // noise_streams = "global": every rank draws the global batch from rank 0's
  // stream and keeps its slice, so the images seen do not depend on the world size.
  const bool global_noise = cfg.noise_streams == NoiseStreams::kGlobal;
  seed_initial_weights(cfg.seed);  // G and D draw their initial weights next
  r.state = std::make_unique<TrainState>(cfg, r.device, rank, world, global_noise);
  TrainState& state = *r.state;
  std::vector<ConfigChange> changes;
  if (resumed) changes = resume_state(state, cfg, r.resumed_from);
  apply_precision(precision, state);
  attach_data_parallel(r.comm, *r.sync, state, cfg.sync_bn);

  r.run = std::make_unique<RunContext>(cfg.run_dir, cfg.steps, r.comm);
  RunContext& run = *r.run;
  run.keep_checkpoints = cfg.keep_checkpoints;
  run.last_checkpoint = r.resumed_from;
  if (resumed) run.last_checkpoint_step = state.step;
  // The last check of a resume (data that shrank), before anything in the run directory is written:
  // a refused resume leaves config.toml, metrics.jsonl and config_changes.log as they were.
  if (!r.finished())
    r.loader = std::make_unique<DataLoader>(r.dataset, loader_options(cfg, r.device, rank, world), state.data_position);
  if (main_rank) {
    write_run_files(paths, cfg.config_text, state, precision, resumed, world);
    record_config_changes(cfg.run_dir, changes, state.step);
    std::cerr << "train: " << r.dataset->describe() << "; device " << r.device << "; G "
              << count_parameters(*state.g) << " parameters, D " << count_parameters(*state.d) << "; run dir "
              << cfg.run_dir << "\n";
    run.log = std::make_unique<MetricsLog>(paths.metrics_log(), resumed ? state.step : -1);
    if (cfg.tensorboard) run.tb = std::make_unique<TensorBoardWriter>(cfg.run_dir);
  }
  if (r.finished()) {
    r.owed_hooks = owed_final_hooks(hook_settings(cfg, r.comm), r.evaluator, paths, state.step, *r.comm);
    return open;
  }

  r.extra_hooks = std::move(extra_hooks);
  r.standard_hooks = standard_hooks(hook_settings(cfg, r.comm), r.evaluator);
  r.step = step_config(cfg, cfg.batch_size / world, precision);
  if (global_noise) {
    r.step.slice = BatchSlice{rank, world};
  }
  r.ema = EmaSchedule{cfg.ema_decay, cfg.ema_start};
  r.share_rank0_buffers = !cfg.sync_bn;
  run.max_nonfinite_steps = cfg.max_nonfinite_steps;
  run.bar = std::make_unique<ProgressBar>("train", cfg.steps - state.step, "step");
  state.g->train();
  state.d->train();
  return open;
}

}  // namespace hamgan
