// Full disks: a write to a full device is one line with the space it needed; a
// checkpoint or HDF5 output that does not fit fails in one line, leaves no
// temporaries and keeps the last good checkpoint.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/checked_file.h"
#include "core/errors.h"
#include "gan/checkpoint/archive.h"
#include "gan/checkpoint/run_dir.h"
#include "tests/common/reliability_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;
using test::dir_for;
using test::error_line;
using test::run_command;
using test::temporaries_in;
using test::train_cmd;

TEST(CheckedFileWriter, FullDeviceGivesOneLineWithTheSpaceNeeded) {
  CheckedFileWriter out("/dev/full", "/dev/full");
  const std::vector<char> block(1 << 20, 'x');
  EXPECT_EQ(out.write(block.data(), block.size()), block.size());  // never a short count to the caller
  EXPECT_EQ(out.bytes_requested(), 1u << 20);
  try {
    out.finish();
    FAIL() << "a write to /dev/full succeeded";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("No space left on device"), std::string::npos) << msg;
    EXPECT_NE(msg.find("needs 1.0 MiB"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

// A small tmpfs filled but for a few pages: the next checkpoint cannot fit.
class FullDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    mount_point_ = dir_for("full_disk");
    if (::getuid() != 0 || ::mount("tmpfs", mount_point_.c_str(), "tmpfs", 0, "size=8m") != 0)
      GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) ::umount2(mount_point_.c_str(), MNT_DETACH);
  }
  void fill_leaving(uint64_t bytes) {
    const uint64_t free = free_bytes_at(mount_point_);
    ASSERT_GT(free, bytes);
    std::ofstream(filler()) << std::string(free - bytes, 'f');
  }
  std::string filler() const { return mount_point_ + "/filler"; }
  std::string mount_point_;
  bool mounted_ = false;
};

TEST_F(FullDisk, CheckpointFailsInOneLineKeepsTheLastOneAndResumesOnceThereIsSpace) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string run = mount_point_ + "/run";
  std::string out;
  ASSERT_EQ(run_command(train_cmd(run, 2), &out), 0) << out;
  const std::string good = run + "/checkpoints/step_0000002.pt";
  ASSERT_TRUE(checkpoint_is_complete(good));
  fill_leaving(64 * 1024);  // room for log rows, not for a checkpoint
  ASSERT_EQ(run_command(train_cmd(run, 4, "--resume"), &out), 1) << out;
  const std::string error = error_line(out);
  EXPECT_NE(error.find("step_0000004.pt: cannot write (No space left on device); the file needs"), std::string::npos)
      << out;
  EXPECT_NE(error.find("last good checkpoint: " + good), std::string::npos) << out;
  EXPECT_TRUE(temporaries_in(run).empty());
  EXPECT_EQ(latest_checkpoint(run + "/checkpoints"), good);
  EXPECT_FALSE(fs::exists(run + "/checkpoints/step_0000004.pt"));
  fs::remove(filler());
  ASSERT_EQ(run_command(train_cmd(run, 4, "--resume"), &out), 0) << out;
  EXPECT_EQ(latest_checkpoint(run + "/checkpoints"), run + "/checkpoints/step_0000004.pt");
}

TEST_F(FullDisk, Hdf5OutputToAFullDiskIsOneLineNotACrash) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string run = dir_for("hdf5_full_run");  // the checkpoint lives off the small disk
  std::string out;
  ASSERT_EQ(run_command(train_cmd(run, 2), &out), 0) << out;
  fill_leaving(64 * 1024);
  const std::string bin = test::hamgan_bin();
  // sample --out x.hdf5 (before: the right error, then a segfault at exit, 139)
  EXPECT_EQ(run_command(bin + " sample --checkpoint " + run + " --n 2000 --quiet --device cpu --out " + mount_point_ +
                            "/x.hdf5 2>&1",
                        &out),
            1)
      << out;
  EXPECT_NE(error_line(out).find(mount_point_ + "/x.hdf5: cannot write (No space left on device)"), std::string::npos)
      << out;
  // prepare refuses before writing when the estimate does not fit
  EXPECT_EQ(run_command(bin + " prepare --no_progress --output " + mount_point_ + "/p.hdf5 2>&1", &out), 1) << out;
  EXPECT_NE(error_line(out).find("60000 images need about"), std::string::npos) << out;
  EXPECT_TRUE(temporaries_in(mount_point_).empty());
  EXPECT_FALSE(fs::exists(mount_point_ + "/x.hdf5") || fs::exists(mount_point_ + "/p.hdf5"));
}

}  // namespace
}  // namespace hamgan
