// Gradient accumulation (accumulate = k): k micro-batches of b/k give the
// gradients of one batch of b wherever nothing couples the examples of a batch.
// Spectral norm's u is held fixed by eval mode (its power iteration runs in
// training only) and G's batch norm takes its moving statistics in eval mode;
// then the loss of the batch is the mean of the micro-batch means, and the sum
// of their gradients, each scaled by 1/k, is the batch's gradient. Under
// data-parallel training the bucketed all-reduce must carry that sum too.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include "core/distributed/communicator.h"
#include "core/errors.h"
#include "gan/step/bucketed_grad_sync.h"
#include "gan/step/steps.h"
#include "gan/train/trainer.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

TrainConfig accumulate_config() {
  TrainConfig c = test::tiny_config(test::temp_dir("accumulate"));
  // SA: deterministic (the Hamburger draws random bases whose shape follows the batch).
  c.model.g_block.name = "sa";
  c.model.d_block.name = "sa";
  c.model.block_options.clear();
  c.model.g_ch = 8;
  c.model.d_ch = 8;
  c.batch_size = 8;
  return c;
}

Batch fixed_batch(int64_t b) {
  torch::manual_seed(7);
  return {torch::randint(0, 256, {b, 1, 32, 32}, torch::kUInt8), torch::randint(0, 10, {b}, torch::kLong),
          torch::rand({b}) < 0.5};
}

StepConfig step_config(const TrainConfig& c, int64_t accumulate) {
  StepConfig s{1, c.batch_size, Precision{}};
  s.accumulate = accumulate;
  return s;
}

std::vector<torch::Tensor> grads(torch::nn::Module& m) {
  std::vector<torch::Tensor> out;
  for (const auto& p : m.parameters())
    out.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  return out;
}

// ||a - b|| / ||b|| over all of a module's gradients as one vector.
double relative_difference_of_all(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  auto flat = [](const std::vector<torch::Tensor>& ts) {
    std::vector<torch::Tensor> f;
    for (const auto& t : ts) f.push_back(t.reshape(-1).to(torch::kDouble));
    return torch::cat(f);
  };
  const torch::Tensor x = flat(a), y = flat(b);
  return (x - y).norm().item<double>() / std::max(y.norm().item<double>(), 1e-300);
}

struct DResult {
  std::vector<torch::Tensor> grads;
  double loss = 0, real = 0, fake = 0;
};

DResult d_update(const TrainConfig& c, int64_t accumulate) {
  seed_initial_weights(c.seed);  // the same weights for every call
  TrainState state(c, torch::kCPU);
  state.g->eval();
  state.d->eval();  // u fixed
  const Batch batch = fixed_batch(c.batch_size);
  NoSync sync;
  StepStats stats;
  d_step(state, [&] { return batch; }, step_config(c, accumulate), sync, stats);
  return {grads(*state.d), stats.d_loss.item<double>(), stats.d_real.item<double>(), stats.d_fake.item<double>()};
}

TEST(Accumulate, FourMicroBatchesGiveTheDiscriminatorGradientOfOneBatch) {
  const TrainConfig c = accumulate_config();
  const DResult one = d_update(c, 1), four = d_update(c, 4);
  const double err = relative_difference_of_all(four.grads, one.grads);
  std::printf("D: 4 x 2 vs 1 x 8, relative gradient difference %.3g\n", err);
  EXPECT_LE(err, 1e-5);
  EXPECT_NEAR(four.loss, one.loss, 1e-6 * std::abs(one.loss));
  // Mean logits to float32 rounding of convolutions over 2 images against 8: oneDNN blocks them by
  // batch size on AVX-512/AMX CPUs (1.7e-6 apart seen on one, 0 on another).
  EXPECT_NEAR(four.real, one.real, 1e-5);
  EXPECT_NEAR(four.fake, one.fake, 1e-5);
  EXPECT_GT(one.grads[0].norm().item<double>(), 0);
}

std::vector<torch::Tensor> g_update(const TrainConfig& c, int64_t accumulate, bool bn_in_train_mode) {
  seed_initial_weights(c.seed);  // the same weights for every call
  TrainState state(c, torch::kCPU);
  state.d->eval();  // u fixed
  if (bn_in_train_mode) state.g->train(); else state.g->eval();
  NoSync sync;
  StepStats stats;
  g_step(state, step_config(c, accumulate), sync, stats);
  return grads(*state.g);
}

TEST(Accumulate, FourMicroBatchesGiveTheGeneratorGradientOfOneBatchWithBatchNormInEval) {
  const TrainConfig c = accumulate_config();
  const double err = relative_difference_of_all(g_update(c, 4, false), g_update(c, 1, false));
  std::printf("G (BN eval): 4 x 2 vs 1 x 8, relative gradient difference %.3g\n", err);
  EXPECT_LE(err, 1e-5);
  // With batch statistics each micro-batch normalises by its own: the test can tell.
  const double coupled = relative_difference_of_all(g_update(c, 4, true), g_update(c, 1, true));
  std::printf("G (BN train): relative gradient difference %.3g\n", coupled);
  EXPECT_GT(coupled, 1e-3);
}

TEST(Accumulate, BatchThatDoesNotSplitIsRefused) {
  TrainConfig c = accumulate_config();
  c.accumulate = 3;
  try {
    c.validate();
    FAIL() << "batch_size 8 with accumulate 3 must be refused";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("accumulate"), std::string::npos) << e.what();
  }
  c.accumulate = 4;
  EXPECT_NO_THROW(c.validate());
}

TEST(Accumulate, TrainingRunsInMicroBatchesAndCheckpoints) {
  TrainConfig c = test::tiny_config(test::temp_dir("accumulate_run"));
  c.accumulate = 2;
  const TrainResult r = train(c);
  EXPECT_EQ(r.step, c.steps);
  TrainState s(c, torch::kCPU);
  s.load(r.checkpoint);
  EXPECT_TRUE(s.all_finite());
  EXPECT_EQ(s.step, c.steps);
}

// Two forked ranks over Gloo, each with a linear model and its own 6 examples in
// 3 micro-batches; only the last backward pass is armed. The reduced gradient
// must be that of the mean loss over all 12 examples (the parent computes it),
// not of the last micro-batch alone.
TEST(Accumulate, BucketedAllReduceCarriesTheSumOfEveryMicroBatch) {
  const std::string dir = test::temp_dir("accumulate_dp");
  constexpr int kWorld = 2, kMicro = 3, kPerRank = 6;
  auto model = [] {
    torch::manual_seed(3);
    return torch::nn::Linear(torch::nn::LinearOptions(5, 2));
  };
  auto examples = [](int rank) {
    torch::manual_seed(100 + rank);
    return torch::randn({kPerRank, 5});
  };
  // Expected: the gradient of mean over all 12 examples of sum(y^2).
  auto expected_model = model();
  const torch::Tensor all = torch::cat({examples(0), examples(1)});
  expected_model->forward(all).square().sum(1).mean().backward();
  const torch::Tensor expected_w = expected_model->weight.grad().clone();

  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> pids;
  for (int r = 0; r < kWorld; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      int code = 1;
      try {
        DistEnv env;
        env.rank = env.local_rank = r;
        env.world_size = env.local_world_size = kWorld;
        env.store_file = dir + "/store";
        auto comm = Communicator::connect(env, DistBackend::kGloo, torch::kCPU, std::chrono::seconds(60));
        BucketedGradSync sync(comm);
        auto m = model();
        sync.watch(*m, "test gradients");
        const torch::Tensor x = examples(r);
        for (int k = 0; k < kMicro; ++k) {
          const torch::Tensor part = x.slice(0, k * (kPerRank / kMicro), (k + 1) * (kPerRank / kMicro));
          const torch::Tensor loss = m->forward(part).square().sum(1).mean() / kMicro;
          if (k == kMicro - 1) sync.before_backward(*m);
          loss.backward();
        }
        sync.all_reduce_grads(*m);
        const double err = (m->weight.grad() - expected_w).abs().max().item<double>();
        std::fprintf(stderr, "rank %d: max |reduced - expected| %.3g\n", r, err);
        code = err <= 1e-6 ? 0 : 2;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rank %d: %s\n", r, e.what());
      }
      std::fflush(stderr);
      _exit(code);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a rank's reduced gradient is wrong (see stderr)";
  }
}

}  // namespace
}  // namespace hamgan
