#pragma once
// A training run's place in a data-parallel job (docs/training.md,
// "Data-parallel training"): the launcher's environment, the process group on
// c10d (core/distributed), and what the run does with it: every rank starts
// from rank 0's weights, gradients of D and G are averaged in buckets while
// backward runs, G's conditional BN may share its batch statistics, and the
// step's numbers are averaged so that every rank takes the same decisions.
#include <memory>

#include "core/distributed/communicator.h"
#include "gan/train/grad_sync.h"
#include "gan/train/steps.h"
#include "gan/train/train_config.h"
#include "gan/train/train_state.h"

namespace hamgan {

struct DataParallel {
  DistEnv env;
  std::shared_ptr<Communicator> comm;  // null in a single process
  std::unique_ptr<GradSync> sync;      // NoSync, or the bucketed all-reduce over comm
  bool main() const { return env.rank == 0; }
  int64_t rank() const { return env.rank; }
  int64_t world_size() const { return env.world_size; }
};

// The device this rank trains on: `name` resolved, with the CUDA index taken
// from LOCAL_RANK in a job of several ranks (one GPU per rank).
torch::Device rank_device(const std::string& name, const DistEnv& env);

// With WORLD_SIZE > 1 in `env` (dist_env_from_environment), joins the job
// (ConfigError when batch_size does not split evenly over the ranks; PeerError
// when the rendezvous fails within cfg.dist_timeout).
DataParallel join_data_parallel(const TrainConfig& cfg, const DistEnv& env, torch::Device device);

// Rank 0's parameters and buffers (G, D, G_ema) broadcast to every rank, G's
// and D's gradients watched by the bucketed all-reduce, and with cfg.sync_bn
// G's conditional BN layers given the group. No-op in a single process.
void attach_data_parallel(DataParallel& dp, TrainState& state, const TrainConfig& cfg);

// Rank 0's buffers of G (BN moving averages, spectral norm's vectors) copied to
// every rank after each step, as DistributedDataParallel's broadcast_buffers
// does: with per-rank BN statistics the moving averages would drift apart, and
// G_ema and the checkpoint would depend on which rank wrote them.
void share_rank0_buffers(Communicator& comm, torch::nn::Module& module);

// The number of skipped updates summed over the ranks, so that every rank takes
// the same decision on a non-finite step (one small all-reduce and a host read).
void agree_on_skipped_updates(Communicator& comm, StepStats& stats);

// Every rank's noise-stream state gathered into state.rank_noise_states, so that
// a checkpoint written by rank 0 resumes each rank's own stream.
void gather_noise_states(Communicator& comm, TrainState& state);

}  // namespace hamgan
