// open_run: what a run resolves once before its first step.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "gan/checkpoint/archive.h"
#include "gan/train/open_run.h"
#include "gan/train/trainer.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

void expect_same_parameters(torch::nn::Module& a, torch::nn::Module& b) {
  const auto pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& p : pa) EXPECT_TRUE(torch::equal(p.value(), pb[p.key()])) << p.key();
}

TEST(OpenRun, ASingleProcessHasOneRankAndTheHooksInTheirOrderWithoutEvaluation) {
  const TrainConfig c = test::tiny_config(test::temp_dir("open_run_single"));
  const auto run = open_run(c);
  EXPECT_EQ(run->comm->world_size(), 1);
  EXPECT_EQ(run->comm->rank(), 0);
  EXPECT_TRUE(run->run->main);
  EXPECT_FALSE(run->run->stopping);
  EXPECT_EQ(run->run->steps, c.steps);
  EXPECT_FALSE(run->evaluator);  // eval_every = 0
  EXPECT_EQ(run->standard_hooks.size(), 3u);  // log, checkpoint, grid
  EXPECT_FALSE(run->finished());
  EXPECT_EQ(run->step.batch_size, c.batch_size);
}

TEST(OpenRun, SeedsTheWeightsFromTheSeedAloneRightBeforeBuildingThem) {
  TrainConfig c = test::tiny_config(test::temp_dir("open_run_seed"));
  c.seed = 5;
  torch::manual_seed(123);  // whatever ran before does not reach the initial weights
  const auto run = open_run(c);
  torch::manual_seed(5);  // the global generator seeded with `seed` itself, as every earlier release did
  TrainState fresh(c, torch::kCPU);
  expect_same_parameters(*run->state->g, *fresh.g);
  expect_same_parameters(*run->state->d, *fresh.d);
}

TEST(OpenRun, ASingleProcessCheckpointKeepsItsNoiseStreamInOnePlace) {
  const std::string dir = test::temp_dir("open_run_noise_key");
  const TrainConfig c = test::tiny_config(dir);
  const TrainResult r = train(c);
  CheckpointReader reader(r.checkpoint);
  EXPECT_TRUE(reader.has("noise_rng"));
  EXPECT_FALSE(reader.has("rank_noise_rngs"));  // only written by a job of several ranks
  EXPECT_EQ(reader.get_int("world_size"), 1);
}

}  // namespace
}  // namespace hamgan
