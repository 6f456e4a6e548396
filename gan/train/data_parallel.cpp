#include "gan/train/data_parallel.h"

#include <cmath>
#include <iostream>

#include "core/device.h"
#include "gan/train/bucketed_grad_sync.h"
#include "modules/conditional_bn.h"

namespace hamgan {

torch::Device rank_device(const std::string& name, const DistEnv& env) {
  const torch::Device device = resolve_device(name);
  if (!env.distributed() || !device.is_cuda()) return device;
  if (name.find(':') != std::string::npos && env.local_world_size > 1)
    throw ConfigError("device: " + name + " names one GPU for all " + std::to_string(env.local_world_size) +
                      " ranks of this machine; use device = \"cuda\" (each rank takes GPU LOCAL_RANK)");
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(env.local_rank));
}

DataParallel join_data_parallel(const TrainConfig& cfg, const DistEnv& env, torch::Device device) {
  DataParallel dp;
  dp.env = env;
  if (!dp.env.distributed()) {
    dp.sync = std::make_unique<NoSync>();
    return dp;
  }
  if (cfg.batch_size % dp.env.world_size != 0)
    throw ConfigError("batch_size: " + std::to_string(cfg.batch_size) + " (the global batch) does not split over " +
                      std::to_string(dp.env.world_size) + " ranks; use a multiple of " +
                      std::to_string(dp.env.world_size));
  if ((cfg.batch_size / dp.env.world_size) % cfg.accumulate != 0)
    throw ConfigError("accumulate: " + std::to_string(cfg.accumulate) + " micro-batches do not split the " +
                      std::to_string(cfg.batch_size / dp.env.world_size) + " images of each of " +
                      std::to_string(dp.env.world_size) + " ranks; use a batch_size that is a multiple of " +
                      std::to_string(dp.env.world_size * cfg.accumulate));
  const DistBackend backend = parse_dist_backend(cfg.dist_backend, device.is_cuda());
  if (backend == DistBackend::kNccl && !device.is_cuda())
    throw ConfigError("dist_backend: nccl reduces CUDA tensors only, but the device is " + device.str() +
                      "; use dist_backend = \"gloo\" or a CUDA device");
  dp.comm = Communicator::connect(dp.env, backend, std::chrono::seconds(cfg.dist_timeout));
  dp.sync = std::make_unique<BucketedGradSync>(dp.comm);
  if (dp.main())
    std::cerr << "train: data-parallel over " << dp.env.world_size << " ranks (" << dp.env.source << ", "
              << dist_backend_name(backend) << "); " << cfg.batch_size / dp.env.world_size
              << " images per rank of the global batch " << cfg.batch_size << "\n";
  return dp;
}

namespace {

void broadcast_module(Communicator& comm, torch::nn::Module& m, const std::string& what) {
  std::vector<torch::Tensor> tensors;
  for (auto& p : m.parameters()) tensors.push_back(p);
  for (auto& b : m.buffers()) tensors.push_back(b);
  comm.broadcast(tensors, 0, what);
}

}  // namespace

void attach_data_parallel(DataParallel& dp, TrainState& state, const TrainConfig& cfg) {
  if (!dp.comm) return;
  broadcast_module(*dp.comm, *state.g, "broadcasting G's weights from rank 0");
  broadcast_module(*dp.comm, *state.d, "broadcasting D's weights from rank 0");
  if (state.g_ema) broadcast_module(*dp.comm, *state.g_ema, "broadcasting G_ema's weights from rank 0");
  auto& sync = static_cast<BucketedGradSync&>(*dp.sync);
  sync.watch(*state.d, "D gradients");
  sync.watch(*state.g, "G gradients");
  // Only the training G shares statistics: G_ema's standing statistics and the
  // sample grids run on one rank at a time and must not wait on the others.
  if (cfg.sync_bn)
    for (const auto& m : state.g->modules(/*include_self=*/false))
      if (auto bn = std::dynamic_pointer_cast<ConditionalBatchNormImpl>(m)) bn->stats_sync = dp.comm;
}

void share_rank0_buffers(Communicator& comm, torch::nn::Module& module) {
  std::vector<torch::Tensor> buffers = module.buffers();
  comm.broadcast(buffers, 0, "sharing rank 0's batch-norm statistics");
}

void agree_on_skipped_updates(Communicator& comm, StepStats& s) {
  torch::Tensor skipped = torch::full({1}, static_cast<double>(s.skipped_updates), torch::kDouble);
  if (s.d_loss.defined()) skipped = skipped.to(s.d_loss.device());
  comm.all_reduce_sum(skipped, "agreeing on skipped updates");
  s.skipped_updates = static_cast<int64_t>(std::llround(skipped.item<double>()));
}

void gather_noise_states(Communicator& comm, TrainState& state) {
  torch::Tensor mine;
  {
    std::lock_guard<std::mutex> lock(state.noise.mutex());
    mine = state.noise.get_state();
  }
  state.rank_noise_states = torch::stack(comm.all_gather(mine, "gathering the noise streams for a checkpoint"));
}

}  // namespace hamgan
