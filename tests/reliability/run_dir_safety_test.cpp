// One run per directory: stale temporaries of killed runs are removed (only
// theirs), and a second run into a locked directory is refused with the holder's pid.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/dir_lock.h"
#include "core/errors.h"
#include "tests/common/reliability_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;
using test::dead_pid;
using test::dir_for;
using test::error_line;
using test::run_command;
using test::temporaries_in;
using test::train_cmd;

TEST(AtomicFile, RemovesOnlyTemporariesOfProcessesThatAreGone) {
  const std::string dir = dir_for("stale");
  const std::string dead = dir + "/step_0000004.pt.tmp." + std::to_string(dead_pid());
  const std::string mine = dir + "/step_0000006.pt.tmp." + std::to_string(::getpid());
  const std::string init = dir + "/latest.tmp.1";  // pid 1 always runs
  const std::string other = dir + "/notes.tmp.txt";
  for (const auto& p : {dead, mine, init, other}) std::ofstream(p) << "x";
  const auto removed = remove_stale_temporaries(dir);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0], dead);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(mine) && fs::exists(init) && fs::exists(other));
}

TEST(DirectoryLock, SecondHolderIsRefusedWithTheFirstOnesPid) {
  const std::string dir = dir_for("lock");
  {
    DirectoryLock first(dir);
    try {
      DirectoryLock second(dir);
      FAIL() << "two locks on one directory";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("pid " + std::to_string(::getpid())), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(DirectoryLock again(dir));  // released with its holder
}

TEST(TrainReliability, SecondRunIntoALockedDirectoryIsRefused) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = dir_for("locked_run");
  DirectoryLock held(dir);  // stands in for a training run in progress
  std::string out;
  EXPECT_EQ(run_command(train_cmd(dir, 2), &out), 1) << out;
  EXPECT_NE(error_line(out).find("in use by another hamgan process (pid " + std::to_string(::getpid()) + ")"),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(dir + "/checkpoints"));
}

TEST(TrainReliability, StartRemovesTemporariesLeftByKilledRuns) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = dir_for("stale_run");
  std::string out;
  ASSERT_EQ(run_command(train_cmd(dir, 2), &out), 0) << out;
  const std::string left = dir + "/checkpoints/step_0000004.pt.tmp." + std::to_string(dead_pid());
  std::ofstream(left) << std::string(4096, 'x');
  ASSERT_EQ(run_command(train_cmd(dir, 4, "--resume"), &out), 0) << out;
  EXPECT_FALSE(fs::exists(left));
  EXPECT_NE(out.find("removed " + left), std::string::npos) << out;
  EXPECT_TRUE(temporaries_in(dir).empty());
}

}  // namespace
}  // namespace hamgan
