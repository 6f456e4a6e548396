// The recipe's terms under data parallelism: two Gloo ranks equal one process
// with the whole batch, with every term on. The penalties' double backward feeds the same
// bucketed all-reduce as the loss; the augmentation draws are sliced from the
// global draw like z; LeCam's anchors follow the mean logits over all ranks.
#include <gtest/gtest.h>

#include "tests/common/data_parallel_test_util.h"

namespace hamgan {
namespace {
using namespace test;

// SA blocks (the Hamburger's random bases follow the per-rank batch) and settings that make
// two ranks compute one process's updates, as DataParallel.SyncBatchNormOverTwoRanksEquals... does.
TrainConfig every_term_on_two_ranks(const std::string& run_dir) {
  TrainConfig c = dp_config(run_dir);
  use_sa_blocks(c.model);
  c.batch_size = 8;
  c.steps = 3;
  c.adam_eps = 1e-4;
  c.sync_bn = true;
  c.noise_streams = NoiseStreams::kGlobal;
  c.loss = LossType::kRelativisticPairing;
  c.recipe.r1_gamma = 1;
  c.recipe.r2_gamma = 1;
  c.recipe.reg_every = 2;
  c.recipe.augment = AugmentMode::kDiffAug;
  c.recipe.lecam_weight = 0.5;
  return c;
}

// Weights and buffers to 1e-5. Adam's moments hold squared gradients of the penalties' double
// backward, whose convolutions oneDNN blocks by batch size on AVX-512/AMX CPUs (a rank's 4 images
// against one process's 8): D's moments differ by 8.1e-5 on a Xeon with AMX, 3.7e-6 there with
// ONEDNN_MAX_CPU_ISA=AVX2, 1.3e-6 on Zen 4.
void expect_same_state(const std::string& a_dump, const std::string& b_dump, const char* what) {
  const auto a = load_dump(a_dump), b = load_dump(b_dump);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const double err = relative_difference(a[i], b[i]);
    const bool moments = kParts[i].find("Adam") != std::string::npos;
    std::printf("%s: %-14s relative difference %.3g\n", what, kParts[i].c_str(), err);
    EXPECT_LE(err, moments ? 5e-4 : 1e-5) << what << " " << kParts[i];
  }
}

TEST(RecipeComposition, TwoRanksEqualOneProcessWithEveryTerm) {
  const std::string two = temp_dir("recipe_dp_two"), one = temp_dir("recipe_dp_one");
  ASSERT_EQ(run_ranks(every_term_on_two_ranks(two + "/run"), 2, two), kAllOk2);
  ASSERT_EQ(run_ranks(every_term_on_two_ranks(one + "/run"), 1, one), std::vector<int>{0});
  expect_same_state(two + "/rank_0.pt", one + "/rank_0.pt", "2 ranks");
  // Rank-local LeCam anchors (each rank's own half-batch means) would differ from one process's.
  const std::string local = temp_dir("recipe_dp_plain");
  TrainConfig plain = every_term_on_two_ranks(local + "/run");
  plain.recipe = RecipeConfig{};
  plain.loss = LossType::kHinge;
  ASSERT_EQ(run_ranks(plain, 1, local), std::vector<int>{0});
  EXPECT_GT(relative_difference(load_dump(local + "/rank_0.pt")[2], load_dump(one + "/rank_0.pt")[2]), 1e-4)
      << "the terms changed nothing: the comparison above could not fail";
}

}  // namespace
}  // namespace hamgan
