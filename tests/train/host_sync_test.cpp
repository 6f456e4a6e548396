// No host synchronisation in a steady-state training step (docs/training.md,
// "Training speed"), counted on the CPU with the op counter (core/op_counter.h)
// that `hamgan bench train --profile` reports with: whole trainer steps between
// log rows and checkpoints, with and without the non-finite guard, and the step
// functions of a data-parallel rank over a backend that behaves like NCCL.
#include <gtest/gtest.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include "core/distributed/process_group.h"
#include "core/op_counter.h"
#include "gan/step/bucketed_grad_sync.h"
#include "gan/train/data_parallel.h"
#include "gan/step/steps.h"
#include "gan/train/trainer.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

std::string listed(const std::map<std::string, int64_t>& ops) {
  std::string s;
  for (const auto& [op, n] : ops) s += " " + op + " ×" + std::to_string(n);
  return s;
}

class HostSync : public ::testing::TestWithParam<int64_t> {};

TEST_P(HostSync, SteadyStateTrainerStepsReadNothingFromTheDevice) {
  TrainConfig c = test::tiny_config(test::temp_dir("host_sync_" + std::to_string(GetParam())));
  c.steps = 8;
  c.log_every = 1000;  // rows and checkpoints only at the end, outside the counted steps
  c.sample_every = 1000;
  c.checkpoint_every = 1000;
  c.max_nonfinite_steps = GetParam();  // > 0: the non-finite guard in every update
  auto counter = std::make_shared<std::unique_ptr<OpCounter>>();
  OpCounts counted;
  std::map<std::string, int64_t> sync_ops;
  TrainHooks hooks;
  hooks.push_back(make_callback_hook([&, counter](TrainState& s, RunContext&) {
    if (s.step == 2) *counter = std::make_unique<OpCounter>(1);  // steps 3 to 6, whole loop iterations
    if (s.step == 6) {
      (*counter)->lap(0);
      counted = (*counter)->total();
      sync_ops = (*counter)->sync_ops();
      counter->reset();
    }
  }));
  const TrainResult r = train(c, std::move(hooks));
  ASSERT_EQ(r.step, 8);
  EXPECT_GT(counted.kernels, 100);  // the counter saw the steps
  EXPECT_EQ(counted.syncs, 0) << "host synchronisations in 4 steps:" << listed(sync_ops);
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutTheGuard, HostSync, ::testing::Values(0, 3));

// A c10d backend that completes every collective at once and whose wait()
// never blocks the host (NCCL's contract), leaving the data as it is.
class NcclLikeBackend : public c10d::Backend {
 public:
  NcclLikeBackend() : Backend(0, 2) {}
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>&, const c10d::AllreduceOptions&) override {
    return done();
  }
  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>&, const c10d::BroadcastOptions&) override {
    return done();
  }

 private:
  struct Done : c10d::Work {
    bool isCompleted() override { return true; }
    bool wait(std::chrono::milliseconds) override { return true; }
  };
  static c10::intrusive_ptr<c10d::Work> done() { return c10::make_intrusive<Done>(); }
};

TEST(HostSync, DataParallelStepsOverAnNcclLikeBackendReadNothingFromTheDevice) {
  TrainConfig c = test::tiny_config(test::temp_dir("host_sync_dp"));
  ProcessGroupParts parts;
  parts.backend = c10::make_intrusive<NcclLikeBackend>();
  parts.store = c10::make_intrusive<c10d::HashStore>();
  parts.world_size = 2;
  const std::shared_ptr<Communicator> comm = communicator_over(parts);
  seed_initial_weights(c.seed);
  TrainState state(c, torch::kCPU, 0, 2);
  BucketedGradSync sync(comm);
  attach_data_parallel(comm, sync, state, /*sync_bn=*/false);
  StepConfig step{c.d_steps, c.batch_size, Precision{}};
  step.skip_nonfinite = true;
  const Batch batch{torch::randint(0, 256, {c.batch_size, 1, 32, 32}, torch::kUInt8), torch::randint(0, 10, {c.batch_size}),
                    torch::rand({c.batch_size}) < 0.5};
  const auto one_step = [&] {
    StepStats stats;
    d_step(state, [&] { return batch; }, step, sync, stats);
    g_step(state, step, sync, stats);
    share_rank0_buffers(*comm, *state.g);
    ++state.step;
    ema_step(state, EmaSchedule{c.ema_decay, c.ema_start});
  };
  one_step();  // warm-up: optimiser state and the spectral-norm groups are made at the first step
  OpCounter counter(1);
  for (int i = 0; i < 3; ++i) one_step();
  counter.lap(0);
  EXPECT_GT(counter.total().kernels, 100);
  EXPECT_EQ(counter.total().syncs, 0) << "host synchronisations in 3 steps:" << listed(counter.sync_ops());
}

}  // namespace
}  // namespace hamgan
