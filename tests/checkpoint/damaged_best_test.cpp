// A truncated best.pt is reported as damaged, not as absent: "no best checkpoint"
// would send the user looking for an evaluation setting that was right.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <string>

#include "core/errors.h"
#include "core/run_paths.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/train/train_state.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

TEST(BestCheckpoint, ATruncatedBestIsNamedDamagedNotMissing) {
  const std::string dir = test::temp_dir("damaged_best");
  const TrainConfig c = test::tiny_config(dir);
  const RunPaths paths(dir);
  fs::create_directories(paths.checkpoints());
  TrainState s(c, torch::kCPU);
  s.save(paths.best_checkpoint());
  EXPECT_FALSE(checkpoint_is_damaged(paths.best_checkpoint()));
  EXPECT_EQ(resolve_checkpoint_path(dir, "best"), paths.best_checkpoint());
  fs::resize_file(paths.best_checkpoint(), fs::file_size(paths.best_checkpoint()) / 2);
  EXPECT_TRUE(checkpoint_is_damaged(paths.best_checkpoint()));
  try {
    resolve_checkpoint_path(dir, "best");
    FAIL() << "a truncated best.pt was accepted";
  } catch (const CheckpointError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(paths.best_checkpoint() + ": the best checkpoint is incomplete or damaged"), std::string::npos)
        << m;
    EXPECT_EQ(m.find("no best checkpoint"), std::string::npos) << m;
  }
  fs::remove(paths.best_checkpoint());  // gone entirely: that is "no best checkpoint"
  EXPECT_FALSE(checkpoint_is_damaged(paths.best_checkpoint()));
  try {
    resolve_checkpoint_path(dir, "best");
    FAIL() << "a missing best.pt was accepted";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("no best checkpoint"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hamgan
