// A run whose every step is skipped as non-finite never checkpoints that state
// and never loses the last checkpoint a step succeeded from (a resume at absurd
// learning rates once ended "finished at step 20", exit 0, with only poisoned
// checkpoints left after keep_checkpoints pruned the good one).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "gan/checkpoint/archive.h"
#include "gan/checkpoint/run_dir.h"
#include "tests/common/reliability_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

TEST(Divergence, AStateNoStepSucceedsFromIsNeverCheckpointedAndLatestStaysGood) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  const std::string run = test::dir_for("divergence") + "/run";
  std::string out;
  ASSERT_EQ(test::run_command(test::train_cmd(run, 6), &out), 0) << out;
  const std::string good = run + "/checkpoints/step_0000006.pt";
  ASSERT_TRUE(checkpoint_is_complete(good));
  const int status = test::run_command(
      test::train_cmd(run, 20,
                      "--resume --keep_checkpoints 1 --max_nonfinite_steps 100 "
                      "--precision bf16 --g_lr 1e30 --d_lr 1e30"),
      &out);
  EXPECT_NE(status, 0) << out;
  const std::string error = test::error_line(out);
  EXPECT_NE(error.find("every step since step 6 was skipped as non-finite"), std::string::npos) << out;
  EXPECT_NE(error.find("last good checkpoint: " + good), std::string::npos) << out;
  EXPECT_TRUE(checkpoint_is_complete(good));  // not pruned
  EXPECT_FALSE(fs::exists(run + "/checkpoints/step_0000008.pt")) << out;
  EXPECT_FALSE(fs::exists(run + "/checkpoints/step_0000020.pt")) << out;
  EXPECT_EQ(latest_checkpoint(run + "/checkpoints"), good);
  EXPECT_EQ(out.find("finished at step"), std::string::npos) << out;
}

// The newest checkpoint a step succeeded from is never pruned, whatever keep_checkpoints says.
TEST(Divergence, MarkingLatestNeverPrunesTheProtectedCheckpoint) {
  const std::string dir = test::dir_for("protected_prune");
  fs::create_directories(dir);
  for (int step : {3, 6, 9}) {
    CheckpointWriter w;
    w.put("step", int64_t{step});
    w.save(dir + "/" + checkpoint_file_name(step));
  }
  mark_latest_checkpoint(dir, checkpoint_file_name(9), 1, checkpoint_file_name(3));
  EXPECT_TRUE(fs::exists(dir + "/" + checkpoint_file_name(3)));
  EXPECT_FALSE(fs::exists(dir + "/" + checkpoint_file_name(6)));
  EXPECT_TRUE(fs::exists(dir + "/" + checkpoint_file_name(9)));
  EXPECT_EQ(latest_checkpoint(dir), dir + "/" + checkpoint_file_name(9));
}

}  // namespace
}  // namespace hamgan
