// Training survives what kills long runs: errors and stops mid-run, SIGHUP, bad
// files met late, and resumes that would silently change the run (full disks:
// full_disk_test.cpp; stale temporaries and locks: run_dir_safety_test.cpp).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>

#include "core/errors.h"
#include "core/stop_signal.h"
#include "gan/checkpoint/archive.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/train/trainer.h"
#include "tests/common/reliability_test_util.h"

namespace hamgan {
namespace {
using test::dir_for;
using test::error_line;
using test::lines_starting;
using test::run_command;
using test::train_cmd;

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
  c.resume = ResumeMode::kYes;
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
  const auto [status, out] = test::train_and_signal(dir, SIGHUP);  // once it has trained a few steps
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
  EXPECT_NE(changes.find("step 2: steps 2 -> 4"), std::string::npos) << changes;  // training further is recorded
  EXPECT_NE(changes.find("step 4: seed 0 -> 5 (forced with --allow_config_change)"), std::string::npos) << changes;
}

}  // namespace
}  // namespace hamgan
