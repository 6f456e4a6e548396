// Data-parallel training on c10d's Gloo backend, two ranks on one machine: each
// rank is a forked child running train() with torchrun's variables set and a
// FileStore rendezvous in a scratch directory; at the last step each rank dumps
// every parameter, buffer and optimiser state it holds, and the parent compares.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>

#include "gan/train/trainer.h"
#include "tests/common/data_parallel_test_util.h"

namespace hamgan {
namespace {
using namespace test;

TEST(DataParallel, RanksStayBitIdenticalAfterFiveSteps) {
  const std::string dir = test::temp_dir("dp_identical");
  TrainConfig c = dp_config(dir + "/run");
  c.steps = 5;
  ASSERT_EQ(run_ranks(c, 2, dir), kAllOk2);
  const auto a = load_dump(dir + "/rank_0.pt"), b = load_dump(dir + "/rank_1.pt");
  ASSERT_EQ(a.size(), kParts.size());
  ASSERT_EQ(b.size(), kParts.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_GT(a[i].numel(), 0) << kParts[i];
    EXPECT_TRUE(torch::equal(a[i], b[i])) << kParts[i];
  }
  // They trained: G and D moved from the seed's initial weights.
  seed_initial_weights(c.seed);
  TrainState start(c, torch::kCPU);
  const auto init = state_tensors(start);
  EXPECT_FALSE(torch::equal(a[0], init[0])) << "G did not train";
  EXPECT_FALSE(torch::equal(a[2], init[2])) << "D did not train";
}

// 2 ranks x b with synchronised BN equal 1 rank x 2b, each part of the state
// (G, D, G_ema, buffers, Adam) to 1e-5 in relative norm: the loader hands each rank
// its contiguous half of the same global batch, noise_streams = "global" makes
// each rank draw the global batch's z and labels and keep its half, and spectral
// norm's power iteration sees the same weights on every rank (they are
// identical), so only the order of floating-point sums differs. The block is
// SA: the Hamburger's NMF draws random bases per batch, whose shape follows the
// per-rank batch.
TEST(DataParallel, SyncBatchNormOverTwoRanksEqualsOneRankWithTwiceTheBatch) {
  const std::string two = test::temp_dir("dp_syncbn_two"), one = test::temp_dir("dp_syncbn_one");
  auto config = [](const std::string& run_dir) {
    TrainConfig c = dp_config(run_dir);
    use_sa_blocks(c.model);
    c.batch_size = 8;  // global
    c.steps = 3;
    // The conv biases in front of a BN have a gradient of exactly zero (BN
    // removes the mean); Adam with eps 1e-8 turns their float32 rounding noise
    // (~1e-10, which depends on the order of every sum) into steps of ±lr, in
    // one process as in two. eps 1e-4 leaves the real gradients normalised and
    // the noise at noise.
    c.adam_eps = 1e-4;
    c.sync_bn = true;
    c.noise_streams = NoiseStreams::kGlobal;
    return c;
  };
  ASSERT_EQ(run_ranks(config(two + "/run"), 2, two), kAllOk2);
  ASSERT_EQ(run_ranks(config(one + "/run"), 1, one), std::vector<int>{0});
  const auto a = load_dump(two + "/rank_0.pt"), b = load_dump(one + "/rank_0.pt");
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const double err = relative_difference(a[i], b[i]);
    std::printf("sync_bn: %-14s relative difference %.3g\n", kParts[i].c_str(), err);
    EXPECT_LE(err, 1e-5) << kParts[i];
  }
  // Without synchronised statistics the same run differs: the test can tell.
  const std::string unsynced = test::temp_dir("dp_syncbn_off");
  TrainConfig off = config(unsynced + "/run");
  off.sync_bn = false;
  ASSERT_EQ(run_ranks(off, 2, unsynced), kAllOk2);
  const auto u = load_dump(unsynced + "/rank_0.pt");
  const double off_g = relative_difference(u[0], b[0]);
  std::printf("per-rank BN: G relative difference %.3g\n", off_g);
  EXPECT_GT(off_g, 1e-4);
}

TEST(DataParallel, StopAtThreeAndResumeToSixEqualsAStraightRunBitForBit) {
  const std::string straight = test::temp_dir("dp_resume_straight"), split = test::temp_dir("dp_resume_split");
  TrainConfig a = dp_config(straight + "/run");
  a.steps = 6;
  a.checkpoint_every = 3;
  ASSERT_EQ(run_ranks(a, 2, straight), kAllOk2);
  TrainConfig b = dp_config(split + "/run");
  b.steps = 3;
  b.checkpoint_every = 3;
  ASSERT_EQ(run_ranks(b, 2, split), kAllOk2);
  b.steps = 6;
  b.resume = ResumeMode::kYes;
  ASSERT_EQ(run_ranks(b, 2, split), kAllOk2);
  for (const char* rank : {"/rank_0.pt", "/rank_1.pt"}) {
    const auto x = load_dump(straight + rank), y = load_dump(split + rank);
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(torch::equal(x[i], y[i])) << rank << " " << kParts[i];
  }
  EXPECT_EQ(test::file_contents(straight + "/run/checkpoints/latest"), test::file_contents(split + "/run/checkpoints/latest"));
}

TEST(DataParallel, GlobalBatchThatDoesNotSplitIsRefused) {
  const std::string dir = test::temp_dir("dp_split");
  TrainConfig c = dp_config(dir + "/run");
  c.batch_size = 5;
  EXPECT_EQ(run_ranks(c, 2, dir), (std::vector<int>{1, 1}));
}

}  // namespace
}  // namespace hamgan
