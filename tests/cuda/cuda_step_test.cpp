// What a GPU run does between the host and the device: a one-rank NCCL
// communicator whose control collectives complete and whose gradient buckets
// reduce; and a training step under CUDA's sync-debug mode, which turns any
// host synchronisation (an .item(), a blocking copy) into an error. Skipped
// without CUDA, failed instead with HAMGAN_REQUIRE_CUDA=1.
#include <gtest/gtest.h>

#ifdef HAMGAN_WITH_CUDA
#include <c10/cuda/CUDAFunctions.h>
#endif

#include "core/device.h"
#include "core/distributed/communicator.h"
#include "gan/step/steps.h"
#include "gan/train/train_state.h"
#include "tests/common/cuda_test_util.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

TEST(CudaNccl, OneRankCommunicatorAgreesGathersAndReduces) {
  REQUIRE_CUDA_OR_SKIP();
  const torch::Device cuda = resolve_device(test::cuda_test_device());
  use_device(cuda);
  DistEnv env;
  env.store_file = test::temp_dir("cuda_nccl") + "/store";
  auto comm = Communicator::connect(env, DistBackend::kNccl, cuda, std::chrono::seconds(60));
  comm->barrier("a barrier");
  EXPECT_TRUE(comm->any(true, "an agreement"));
  EXPECT_FALSE(comm->any(false, "an agreement"));
  EXPECT_EQ(comm->sum(7, "a sum"), 7);
  const auto gathered = comm->all_gather(torch::arange(3, torch::TensorOptions(cuda)), "a gather");
  ASSERT_EQ(gathered.size(), 1u);
  EXPECT_TRUE(torch::equal(gathered[0].cpu(), torch::arange(3)));
  torch::Tensor g = torch::full({1000}, 2.0f, torch::TensorOptions(cuda));
  comm->all_reduce_sum_async(g, "gradients")->wait();
  EXPECT_EQ(g.sum().item<float>(), 2000.0f);
}

#ifdef HAMGAN_WITH_CUDA
// Sync-debug mode for a scope: any host synchronisation inside throws.
class NoHostSync {
 public:
  NoHostSync() { c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_ERROR); }
  ~NoHostSync() { c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_DISABLED); }
};
#endif

TEST(CudaStep, TrainingStepsWithoutHostSynchronisation) {
  REQUIRE_CUDA_OR_SKIP();
#ifndef HAMGAN_WITH_CUDA
  FAIL() << "built without the CUDA code path (HAMGAN_WITH_CUDA): sync-debug mode is out of reach";
#else
  TrainConfig c = test::tiny_config(test::temp_dir("cuda_sync"));
  c.device = test::cuda_test_device();
  const torch::Device cuda = resolve_device(c.device);
  use_device(cuda);
  seed_initial_weights(c.seed);
  TrainState state(c, cuda);
  NoSync sync;
  const StepConfig step{c.d_steps, c.batch_size, Precision{}};
  const Batch batch{torch::rand({c.batch_size, 1, 32, 32}).mul(2).sub(1).pin_memory(),
                    torch::randint(0, 10, {c.batch_size}, torch::kLong).pin_memory()};
  const BatchSource batches = [&] { return batch; };
  const auto one_step = [&] {
    StepStats stats;
    d_step(state, batches, step, sync, stats);
    g_step(state, step, sync, stats);
    ema_step(state, EmaSchedule{c.ema_decay, c.ema_start});
  };
  one_step();  // warm-up: lazy initialisation may synchronise once
  torch::cuda::synchronize(cuda.index());
  try {
    NoHostSync guard;
    for (int i = 0; i < 3; ++i) one_step();
  } catch (const c10::Error& e) {
    FAIL() << "a training step synchronised with the host: " << e.what_without_backtrace();
  }
  torch::cuda::synchronize(cuda.index());
#endif
}

}  // namespace
}  // namespace hamgan
