#include "gan/train/data_parallel.h"

#include <iostream>

#include "core/device.h"
#include "core/rng.h"
#include "core/threads.h"
#include "gan/step/bucketed_grad_sync.h"
#include "modules/conditional_bn.h"

namespace hamgan {

torch::Device rank_device(const std::string& name, const DistEnv& env, const CudaProbe& probe) {
  const torch::Device device = resolve_device(name, probe);
  if (!env.distributed() || !device.is_cuda()) return device;
  if (name.find(':') != std::string::npos) {
    if (env.local_world_size > 1)
      throw ConfigError("device: " + name + " names one GPU for all " + std::to_string(env.local_world_size) +
                        " ranks of this machine; use device = \"cuda\" (each rank takes GPU LOCAL_RANK)");
    return device;
  }
  if (env.local_rank < probe.devices) return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(env.local_rank));
  if (probe.devices == 1) return torch::Device(torch::kCUDA, 0);  // the launcher shows each task its own GPU
  throw ConfigError("device: rank " + std::to_string(env.rank) + " (local rank " + std::to_string(env.local_rank) +
                    ") has no GPU of its own: this machine shows " + std::to_string(probe.devices) +
                    " CUDA devices; start at most " + std::to_string(probe.devices) +
                    " ranks per machine, or show each task one GPU (srun --gpus-per-task 1)");
}

void check_batch_split(int64_t batch_size, int64_t accumulate, int64_t world) {
  if (batch_size % world != 0)
    throw ConfigError("batch_size: " + std::to_string(batch_size) + " (the global batch) does not split over " +
                      std::to_string(world) + " ranks; use a multiple of " + std::to_string(world));
  if ((batch_size / world) % accumulate != 0)
    throw ConfigError("accumulate: " + std::to_string(accumulate) + " micro-batches do not split the " +
                      std::to_string(batch_size / world) + " images of each of " + std::to_string(world) +
                      " ranks; use a batch_size that is a multiple of " + std::to_string(world * accumulate));
}

void check_local_ranks(int64_t nproc, const std::string& device, int64_t batch_size, int64_t accumulate,
                       const CudaProbe& probe, int64_t cores) {
  if (nproc <= 1) return;
  if (!resolve_device(device, probe).is_cuda()) {
    // Each rank computes on its own core(s): more ranks than cores only thrash the machine.
    const int64_t have = cores > 0 ? cores : available_cores();
    if (nproc > have)
      throw ConfigError("--nproc: " + std::to_string(nproc) + " ranks but this machine gives this process " +
                        std::to_string(have) + " CPU cores; use --nproc " + std::to_string(have) + " or fewer");
  } else if (device.find(':') == std::string::npos && nproc > probe.devices) {
    throw ConfigError("--nproc: " + std::to_string(nproc) + " ranks but this machine shows " +
                      std::to_string(probe.devices) + " CUDA devices; use --nproc " + std::to_string(probe.devices) +
                      " or fewer (one GPU per rank)");
  }
  check_batch_split(batch_size, accumulate, nproc);
}

std::shared_ptr<Communicator> join_data_parallel(const DistEnv& env, torch::Device device, const JoinSettings& s) {
  if (!env.distributed()) return std::make_shared<LocalCommunicator>();
  const int64_t world = env.world_size;
  check_batch_split(s.batch_size, s.accumulate, world);
  const DistBackend backend = resolve_dist_backend(s.backend, device.is_cuda());
  if (backend == DistBackend::kNccl && !device.is_cuda())
    throw ConfigError("dist_backend: nccl reduces CUDA tensors only, but the device is " + device.str() +
                      "; use dist_backend = \"gloo\" or a CUDA device");
  auto comm = Communicator::connect(env, backend, device, s.timeout, s.run_dir);
  if (env.rank == 0)
    std::cerr << "train: data-parallel over " << world << " ranks (" << env.source << ", "
              << dist_backend_names().name(backend) << "); " << s.batch_size / world
              << " images per rank of the global batch " << s.batch_size << "\n";
  return comm;
}

std::unique_ptr<GradSync> grad_sync_for(const std::shared_ptr<Communicator>& group) {
  // Bucketing over a single process would only copy every gradient twice.
  if (group->world_size() == 1) return std::make_unique<NoSync>();
  return std::make_unique<BucketedGradSync>(group);
}

namespace {

void broadcast_module(Communicator& comm, torch::nn::Module& m, const std::string& what) {
  std::vector<torch::Tensor> tensors;
  for (auto& p : m.parameters()) tensors.push_back(p);
  for (auto& b : m.buffers()) tensors.push_back(b);
  comm.broadcast(tensors, 0, what);
}

}  // namespace

void attach_data_parallel(const std::shared_ptr<Communicator>& comm, GradSync& sync, TrainState& state, bool sync_bn) {
  broadcast_module(*comm, *state.g, "broadcasting G's weights from rank 0");
  broadcast_module(*comm, *state.d, "broadcasting D's weights from rank 0");
  if (state.g_ema) broadcast_module(*comm, *state.g_ema, "broadcasting G_ema's weights from rank 0");
  sync.watch(*state.d, "D gradients");
  sync.watch(*state.g, "G gradients");
  // Only the training G shares statistics: G_ema's standing statistics and the
  // sample grids run on one rank at a time and must not wait on the others.
  // (A single process's BN computes locally with any communicator of one rank.)
  if (sync_bn)
    for (const auto& m : state.g->modules(/*include_self=*/false))
      if (auto bn = std::dynamic_pointer_cast<ConditionalBatchNormImpl>(m)) bn->stats_sync = comm;
}

void share_rank0_buffers(Communicator& comm, torch::nn::Module& module) {
  std::vector<torch::Tensor> buffers = module.buffers();
  comm.broadcast(buffers, 0, "sharing rank 0's batch-norm statistics");
}

void gather_noise_states(Communicator& comm, TrainState& state) {
  torch::Tensor mine;
  {
    std::lock_guard<std::mutex> lock(state.noise.mutex());
    mine = state.noise.get_state();
  }
  state.rank_noise_states = torch::stack(comm.all_gather(mine, "gathering the noise streams for a checkpoint"));
  if (state.device_rng.defined())
    state.rank_device_rng_states = torch::stack(
        comm.all_gather(generator_state(state.device_rng), "gathering the device generators for a checkpoint"));
}

}  // namespace hamgan
