// Runs that live under a scheduler: `--resume auto` (the same command starts or
// continues), `--time_limit` (checkpoint and stop before the wall clock runs
// out) and SIGUSR1 (SLURM's --signal: checkpoint, then exit with the requeue status).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>

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
  for (const char* bad : {"", "h", "1x", "1:60:00", "1:2:3:4", "-5", "1.5h", "abc"})
    EXPECT_EQ(parse_duration(bad), -1) << bad;
  for (int64_t s : {0, 59, 60, 3599, 3600, 5415, 90061}) EXPECT_EQ(parse_duration(format_duration(s)), s) << s;
  EXPECT_EQ(format_duration(5400), "1h30m");
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
  ASSERT_EQ(test::run_command(test::train_cmd(dir, 100000, "--time_limit 4s"), &out), 0) << out;
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto stopped = test::lines_starting(out, "train: stopped at step ");
  ASSERT_EQ(stopped.size(), 1u) << out;
  EXPECT_NE(stopped[0].find("before the time limit (4s)"), std::string::npos) << stopped[0];
  const std::string latest = latest_checkpoint(dir + "/checkpoints");
  EXPECT_FALSE(latest.empty()) << out;
  EXPECT_NE(stopped[0].find("checkpoint " + latest), std::string::npos) << stopped[0];  // the stop's own step
  EXPECT_LT(took, 30.0) << out;  // start-up, 4 s of steps, one checkpoint: never the 100000 steps
}

TEST_F(Scheduler, Sigusr1CheckpointsAndExitsWithTheRequeueStatus) {
  const std::string dir = test::dir_for("sigusr1");
  const auto [status, out] = test::train_and_signal(dir, SIGUSR1);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal: " << out;
  EXPECT_EQ(WEXITSTATUS(status), kRequeueExitStatus) << out;
  EXPECT_NE(out.find("on SIGUSR1 (exit status 75)"), std::string::npos) << out;
  EXPECT_FALSE(latest_checkpoint(dir + "/checkpoints").empty()) << out;
}

}  // namespace
}  // namespace hamgan
