#pragma once
// A training run's place in a data-parallel job (docs/training.md,
// "Data-parallel training"): the launcher's environment, the process group on
// c10d (core/distributed), and what the run does with it: every rank starts
// from rank 0's weights, gradients of D and G are averaged in buckets while
// backward runs, G's conditional BN may share its batch statistics, and the
// step's numbers are averaged so that every rank takes the same decisions. A
// single process gets a LocalCommunicator and NoSync, so all of the below
// costs it nothing and nobody asks which kind of run it is.
#include <chrono>
#include <memory>
#include <string>

#include "core/cuda_probe.h"
#include "core/distributed/communicator.h"
#include "gan/step/grad_sync.h"
#include "gan/step/steps.h"
#include "gan/train/train_state.h"

namespace hamgan {

// The device this rank trains on: `name` resolved; in a job of several ranks a
// CUDA device is GPU LOCAL_RANK where that many are visible, GPU 0 where each
// task sees one (srun --gpus-per-task 1), and otherwise a ConfigError naming the
// rank, the count and the fix.
torch::Device rank_device(const std::string& name, const DistEnv& env, const CudaProbe& probe = cuda_probe());

// `--nproc` ranks on this machine, checked before any is started: refused
// (ConfigError) when they would train on CUDA and outnumber its devices, or on
// the CPU and outnumber its cores (`cores` 0: available_cores()), or when the
// global batch does not split over them (check_batch_split).
void check_local_ranks(int64_t nproc, const std::string& device, int64_t batch_size, int64_t accumulate,
                       const CudaProbe& probe = cuda_probe(), int64_t cores = 0);

// The global batch over `world` ranks, each in `accumulate` micro-batches: ConfigError unless it divides.
void check_batch_split(int64_t batch_size, int64_t accumulate, int64_t world);

// What joining a job needs from the run's settings.
struct JoinSettings {
  int64_t batch_size = 64;       // the global batch, split over the ranks
  int64_t accumulate = 1;        // micro-batches per rank's share
  DistBackendChoice backend = DistBackendChoice::kAuto;  // dist_backend
  std::chrono::seconds timeout{600};
  std::string run_dir;  // every rank's alike: with the launcher's id, whose job a store holds
};

// A LocalCommunicator for a single process; with WORLD_SIZE > 1 in `env`
// (dist_env_from_environment), joins the job (ConfigError when the batch does
// not split evenly over the ranks; PeerError when the rendezvous fails within
// the timeout).
std::shared_ptr<Communicator> join_data_parallel(const DistEnv& env, torch::Device device, const JoinSettings& s);

// The gradient averaging over `group`: NoSync for a single process, the bucketed all-reduce otherwise.
std::unique_ptr<GradSync> grad_sync_for(const std::shared_ptr<Communicator>& group);

// Rank 0's parameters and buffers (G, D, G_ema) broadcast to every rank, G's
// and D's gradients watched by `sync`, and with `sync_bn` G's conditional BN
// layers given the group.
void attach_data_parallel(const std::shared_ptr<Communicator>& comm, GradSync& sync, TrainState& state, bool sync_bn);

// Rank 0's buffers of G (BN moving averages, spectral norm's vectors) copied to
// every rank after each step, as DistributedDataParallel's broadcast_buffers
// does: with per-rank BN statistics the moving averages would drift apart, and
// G_ema and the checkpoint would depend on which rank wrote them.
void share_rank0_buffers(Communicator& comm, torch::nn::Module& module);


// Every rank's noise-stream state gathered into state.rank_noise_states (and its
// device generator's into state.rank_device_rng_states), so that a checkpoint
// written by rank 0 resumes each rank's own streams.
void gather_noise_states(Communicator& comm, TrainState& state);

}  // namespace hamgan
