// Training survives what kills long runs: full disks, kills that leave
// temporaries, a second run in the same directory, errors and stops mid-run,
// bad files met late, SIGHUP, and resumes that would silently change the run.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/common/process.h"
#include "core/atomic_file.h"
#include "core/checked_file.h"
#include "core/dir_lock.h"
#include "core/errors.h"
#include "core/stop_signal.h"
#include "gan/checkpoint/archive.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/train/trainer.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;
using test::run_command;

std::string dir_for(const std::string& name) { return test::scratch_dir("reliability", name); }

std::vector<std::string> temporaries_in(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) found.push_back(e.path().string());
  return found;
}

// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) found.push_back(line);
  return found;
}

// The one error line of a failed command ("" unless there is exactly one).
std::string error_line(const std::string& out) {
  const auto errors = lines_starting(out, "hamgan: error: ");
  return errors.size() == 1 ? errors[0] : "";
}

std::string train_cmd(const std::string& run_dir, int steps, const std::string& extra = "") {
  return std::string(test::hamgan_bin()) + " train --run_dir " + run_dir + " --steps " + std::to_string(steps) +
         test::tiny_cli_args() + " --tensorboard false --threads 1 " + extra + " 2>&1";
}

// A process id that certainly no longer runs: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

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

TEST(TrainReliability, AnErrorMidRunSavesTheLastWholeStepAndResumesFromIt) {
  const std::string dir = dir_for("error_mid_run");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 6;
  c.checkpoint_every = 100;  // no interval checkpoint before the failure
  TrainHooks hooks;
  hooks.push_back(make_callback_hook([](TrainState& s, RunContext&) {
    if (s.step == 3) throw DataError("images/bad.png: corrupt PNG");
  }));
  try {
    train(c, std::move(hooks));
    FAIL() << "the injected error did not end the run";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("images/bad.png: corrupt PNG; state at step 3 saved to " + dir +
                       "/checkpoints/step_0000003.pt (continue with --resume)"),
              std::string::npos)
        << msg;
  }
  EXPECT_EQ(latest_checkpoint(dir + "/checkpoints"), dir + "/checkpoints/step_0000003.pt");

  // Resuming from the rescued state lands where an uninterrupted run does, bit for bit.
  c.resume = true;
  const TrainResult resumed = train(c);
  EXPECT_EQ(resumed.step, 6);
  const std::string straight_dir = dir_for("error_mid_run_straight");
  TrainConfig s = test::tiny_config(straight_dir);
  s.steps = 6;
  s.checkpoint_every = 100;
  train(s);
  TrainState a(c, torch::kCPU), b(s, torch::kCPU);
  a.load(resumed.checkpoint);
  b.load(straight_dir + "/checkpoints/step_0000006.pt");
  const auto pa = a.g->named_parameters(), pb = b.g->named_parameters();
  for (const auto& p : pa) EXPECT_TRUE(torch::equal(p.value(), pb[p.key()])) << p.key();
}

TEST(TrainReliability, AStopDuringALongPhaseStillCheckpoints) {
  const std::string dir = dir_for("stop_in_phase");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 6;
  c.checkpoint_every = 100;
  TrainHooks hooks;
  hooks.push_back(make_callback_hook([](TrainState& s, RunContext&) {
    if (s.step == 3) throw Interrupted("evaluation: stopped by request");  // what a polled phase throws
  }));
  const TrainResult r = train(c, std::move(hooks));
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.step, 3);
  EXPECT_EQ(r.checkpoint, dir + "/checkpoints/step_0000003.pt");
  EXPECT_TRUE(checkpoint_is_complete(r.checkpoint));
}

TEST(StopSignals, FurtherSignalsDoNotKillWhileTheCheckpointIsWritten) {
  StopSignalGuard guard;
  std::raise(SIGINT);
  std::raise(SIGTERM);  // the impatient second Ctrl-C: still alive, still stopping
  EXPECT_TRUE(stop_requested());
  EXPECT_EQ(stop_signal_number(), SIGTERM);
}

TEST(TrainReliability, SighupCheckpointsAndStopsLikeSigterm) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = dir_for("sighup");
  const std::string log = dir + "/out.txt";
  const std::string cmd = train_cmd(dir, 100000);
  const pid_t pid = test::spawn_shell(cmd.substr(0, cmd.rfind(" 2>&1")), log);
  // Wait until it has trained a few steps (its log has rows), then hang up.
  for (int i = 0; i < 600 && test::file_contents(dir + "/metrics.jsonl").find("\"step\": 3") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(pid, SIGHUP);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::string out = test::file_contents(log);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal: " << out;
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_NE(out.find("train: stopped at step"), std::string::npos) << out;
  EXPECT_FALSE(latest_checkpoint(dir + "/checkpoints").empty()) << out;
}

TEST(TrainReliability, ACorruptClassifierEndsTheRunAtItsStart) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = dir_for("bad_classifier");
  const std::string classifier = dir + "/classifier.pt";
  std::ofstream(classifier) << "not a classifier";
  std::string out;
  EXPECT_EQ(run_command(train_cmd(dir + "/run", 4, "--eval_every 2 --classifier " + classifier), &out), 1) << out;
  EXPECT_NE(error_line(out).find(classifier), std::string::npos) << out;
  EXPECT_TRUE(lines_starting(out, "train: ").empty()) << out;  // nothing trained
  EXPECT_TRUE(step_checkpoints(dir + "/run/checkpoints").empty());  // refused before the first step
}

TEST(TrainReliability, ResumeRefusesAChangedSeedUnlessAllowedAndRecordsChanges) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = dir_for("resume_changes");
  std::string out;
  ASSERT_EQ(run_command(train_cmd(dir, 2), &out), 0) << out;
  EXPECT_EQ(run_command(train_cmd(dir, 4, "--resume --seed 5"), &out), 1) << out;
  EXPECT_NE(error_line(out).find("resume: seed = 5 differs from the run's seed = 0"), std::string::npos) << out;
  EXPECT_NE(out.find("--allow_config_change"), std::string::npos) << out;
  EXPECT_EQ(latest_checkpoint(dir + "/checkpoints"), dir + "/checkpoints/step_0000002.pt");
  EXPECT_EQ(run_command(train_cmd(dir, 4, "--resume --d_steps 2"), &out), 1) << out;
  EXPECT_NE(out.find("d_steps = 2 differs"), std::string::npos) << out;

  // A learning-rate change is allowed and recorded; a forced seed change is recorded as forced.
  ASSERT_EQ(run_command(train_cmd(dir, 4, "--resume --g_lr 0.0002"), &out), 0) << out;
  ASSERT_EQ(run_command(train_cmd(dir, 6, "--resume --seed 5 --allow_config_change"), &out), 0) << out;
  const std::string changes = test::file_contents(dir + "/config_changes.log");
  EXPECT_NE(changes.find("step 2: g_lr 0.0001 -> 0.0002"), std::string::npos) << changes;
  EXPECT_NE(changes.find("step 4: seed 0 -> 5 (forced with --allow_config_change)"), std::string::npos) << changes;
}

}  // namespace
}  // namespace hamgan

namespace hamgan {
namespace {

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
