// Runs that live under a scheduler: `--resume auto` (the same command starts or
// continues), `--time_limit` (checkpoint and stop before the wall clock runs
// out) and SIGUSR1 (SLURM's --signal: checkpoint, then exit with the requeue status).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "core/stop_signal.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/train/run_control.h"
#include "gan/train/time_budget.h"
#include "tests/common/reliability_test_util.h"

namespace hamgan {
namespace {
using std::chrono::seconds;

TEST(Duration, ReadsTheSpellingsSchedulersAndPeopleUse) {
  EXPECT_EQ(parse_duration("5400"), 5400);
  EXPECT_EQ(parse_duration("90m"), 5400);
  EXPECT_EQ(parse_duration("1h30m"), 5400);
  EXPECT_EQ(parse_duration("1h30m15s"), 5415);
  EXPECT_EQ(parse_duration("2d"), 172800);
  EXPECT_EQ(parse_duration("1:30:00"), 5400);
  EXPECT_EQ(parse_duration("90:00"), 5400);
  EXPECT_EQ(parse_duration("0"), 0);
  // ":" and friends once read as 0 seconds, which means no limit at all.
  for (const char* bad : {"", "h", "1x", "1:60:00", "1:2:3:4", "-5", "1.5h", "abc", ":", "::", "1:", ":30", "1::2"})
    EXPECT_EQ(parse_duration(bad), -1) << bad;
  for (int64_t s : {0, 59, 60, 3599, 3600, 5415, 90061}) EXPECT_EQ(parse_duration(format_duration(s)), s) << s;
  EXPECT_EQ(format_duration(int64_t{5400}), "1h30m");
}

TEST(TimeBudget, StopsWhileTwiceTheLongestStepIsLeft) {
  const auto t0 = TimeBudget::Clock::time_point{};
  TimeBudget budget(100, t0);
  budget.step_done(t0 + seconds(10));  // steps of 10 s, one of 25 s (it evaluated)
  EXPECT_FALSE(budget.exhausted(t0 + seconds(79)));
  EXPECT_TRUE(budget.exhausted(t0 + seconds(80)));
  budget.step_done(t0 + seconds(35));
  EXPECT_FALSE(budget.exhausted(t0 + seconds(49)));
  EXPECT_TRUE(budget.exhausted(t0 + seconds(50)));  // 50 + 2 x 25 reaches the limit
  TimeBudget none(0, t0);
  none.step_done(t0 + seconds(1000));
  EXPECT_FALSE(none.exhausted(t0 + seconds(1000000)));
}

TEST(StopSignals, Sigusr1StopsAndAsksForARequeue) {
  StopSignalGuard guard;
  EXPECT_FALSE(requeue_requested());
  std::raise(SIGUSR1);  // without the guard's handler this would kill the test binary
  EXPECT_TRUE(stop_requested());
  EXPECT_TRUE(requeue_requested());
  EXPECT_EQ(stop_signal_number(), SIGUSR1);
}

class Scheduler : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  }
};

TEST_F(Scheduler, ResumeAutoStartsFreshThenContinuesWithTheSameCommand) {
  const std::string dir = test::dir_for("resume_auto");
  std::string out;
  ASSERT_EQ(test::run_command(test::train_cmd(dir, 2, "--resume auto"), &out), 0) << out;
  EXPECT_NE(out.find("train: resume = auto: no checkpoint in " + dir + "/checkpoints; starting fresh"),
            std::string::npos)
      << out;
  // The same command again: the run is finished, so it says so from the checkpoint it found.
  ASSERT_EQ(test::run_command(test::train_cmd(dir, 2, "--resume auto"), &out), 0) << out;
  EXPECT_NE(out.find("resumed from step 2"), std::string::npos) << out;
  EXPECT_NE(out.find("already at step 2 of 2"), std::string::npos) << out;
  // With more steps, it continues (--resume=auto is the same option).
  ASSERT_EQ(test::run_command(test::train_cmd(dir, 3, "--resume=auto"), &out), 0) << out;
  EXPECT_NE(out.find("resumed from step 2"), std::string::npos) << out;
  EXPECT_EQ(latest_checkpoint(dir + "/checkpoints"), dir + "/checkpoints/step_0000003.pt");
  // A plain --resume keeps its meaning: it needs a checkpoint.
  const std::string empty = test::dir_for("resume_plain");
  EXPECT_NE(test::run_command(test::train_cmd(empty, 2, "--resume"), &out), 0);
  EXPECT_NE(test::error_line(out).find("has no checkpoint to resume from"), std::string::npos) << out;
}

TEST_F(Scheduler, TimeLimitCheckpointsAndStopsInTime) {
  const std::string dir = test::dir_for("time_limit");
  std::string out;
  const auto t0 = std::chrono::steady_clock::now();
  // Exit status 75, as after SIGUSR1: a chain of jobs built on --time_limit requeues on it.
  ASSERT_EQ(test::run_command(test::train_cmd(dir, 100000, "--time_limit 4s"), &out), kRequeueExitStatus) << out;
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto stopped = test::lines_starting(out, "train: stopped at step ");
  ASSERT_EQ(stopped.size(), 1u) << out;
  EXPECT_NE(stopped[0].find("before the time limit (4s) (exit status 75)"), std::string::npos) << stopped[0];
  const std::string latest = latest_checkpoint(dir + "/checkpoints");
  EXPECT_FALSE(latest.empty()) << out;
  EXPECT_NE(stopped[0].find("checkpoint " + latest), std::string::npos) << stopped[0];  // the stop's own step
  // Start-up, 4 s of steps, one checkpoint: 3.8-4.6 s measured on a busy 2-core machine, so 60 s leaves
  // room for load and still fails a run that ignores the limit (its 100000 steps would take hours).
  EXPECT_LT(took, 60.0) << out;
}

TEST_F(Scheduler, Sigusr1CheckpointsAndExitsWithTheRequeueStatus) {
  const std::string dir = test::dir_for("sigusr1");
  const auto [status, out] = test::train_and_signal(dir, SIGUSR1);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal: " << out;
  EXPECT_EQ(WEXITSTATUS(status), kRequeueExitStatus) << out;
  EXPECT_NE(out.find("on SIGUSR1 (exit status 75)"), std::string::npos) << out;
  EXPECT_FALSE(latest_checkpoint(dir + "/checkpoints").empty()) << out;
}

// The batch scripts themselves, with stand-ins for SLURM's srun (runs the command) and scontrol (records
// a requeue), and for the image one apptainer (records its options, then runs the command with the
// binary under test as `hamgan`): a chain built on --time_limit requeues (before: exit 0 ended it after
// the first job). Returns the scratch directory.
std::string expect_the_batch_script_requeues(const std::string& script, const std::string& name) {
  const std::string dir = test::dir_for(name);
  const std::string stubs = dir + "/bin";
  std::filesystem::create_directories(stubs);
  std::ofstream(stubs + "/srun") << "#!/bin/sh\nwhile [ \"${1#-}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n";
  std::ofstream(stubs + "/scontrol") << "#!/bin/sh\n[ \"$1\" = requeue ] && echo \"$2\" > " << dir
                                     << "/requeued\n[ \"$1\" = show ] && echo localhost\nexit 0\n";
  std::ofstream(stubs + "/apptainer") << "#!/bin/sh\necho \"$@\" > " << dir
                                      << "/apptainer\nshift\nwhile [ \"${1#-}\" != \"$1\" ]; do\n"
                                         "  case \"$1\" in --nv) shift ;; *) shift 2 ;; esac\ndone\nshift\n"
                                         "exec \"$@\"\n";
  std::filesystem::create_symlink(test::hamgan_bin(), stubs + "/hamgan");
  std::ofstream(dir + "/empty.toml") << "# every key from the command line\n";
  for (const char* f : {"/srun", "/scontrol", "/apptainer"})
    std::filesystem::permissions(stubs + f, std::filesystem::perms::owner_all);
  const std::string tiny = test::train_cmd(dir + "/run", 100000, "--time_limit 3s");
  std::string args = tiny.substr(tiny.find(" train ") + 7, tiny.rfind(" 2>&1") - tiny.find(" train ") - 7);
  args.erase(args.find(" --quiet"), 8);  // the script passes --quiet itself
  std::string out;
  const int status = test::run_command("PATH=" + stubs + ":$PATH SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=n1 " +
                                           "SLURM_SUBMIT_DIR=" + HAMGAN_SOURCE_DIR + " HAMGAN_SIF=" + dir +
                                           "/hamgan.sif HAMGAN_BIND=/data/a,/data/b bash " + HAMGAN_SOURCE_DIR +
                                           "/scripts/slurm/" + script + " " + dir + "/empty.toml " + args + " 2>&1",
                                       &out);
  EXPECT_EQ(status, kRequeueExitStatus) << out;
  EXPECT_EQ(test::file_contents(dir + "/requeued"), "4242\n") << out;
  EXPECT_FALSE(latest_checkpoint(dir + "/run/checkpoints").empty()) << out;
  return dir;
}

TEST_F(Scheduler, TheBatchScriptRequeuesATimeLimitStop) {
  expect_the_batch_script_requeues("train_imagenet128.sbatch", "sbatch");
}

// The image's script runs every rank through `apptainer exec --nv` in HAMGAN_SIF, with the submit
// directory and the HAMGAN_BIND paths bound.
TEST_F(Scheduler, TheApptainerBatchScriptRunsTheImageAndRequeues) {
  const std::string dir = expect_the_batch_script_requeues("train_imagenet128_apptainer.sbatch", "sbatch_apptainer");
  const std::string call = test::file_contents(dir + "/apptainer");
  EXPECT_EQ(call.rfind("exec --nv --bind " + std::string(HAMGAN_SOURCE_DIR) + ",/data/a,/data/b --pwd ", 0), 0u)
      << call;
  EXPECT_NE(call.find(" " + dir + "/hamgan.sif hamgan train --config " + dir + "/empty.toml --resume auto "),
            std::string::npos)
      << call;
}

}  // namespace
}  // namespace hamgan
