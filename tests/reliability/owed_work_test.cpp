// The last step owes a checkpoint, a sample grid and an evaluation (with best.pt).
// A stop that lands at the last step still gets all three before the process
// exits as finished; one that cuts them short leaves them owed, and the resume
// (the requeued `--resume auto` job) finishes exactly those and exits 0 (before:
// exit 75, then "already at step N of N; nothing to do" with no final row).
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>

#include "core/stop_signal.h"
#include "gan/report/run_log.h"
#include "gan/train/trainer.h"
#include "tests/common/classifier_test_util.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

TrainConfig evaluated_run(const std::string& dir) {
  TrainConfig c = test::tiny_config(dir);
  c.steps = 4;
  c.sample_every = 100;  // the grid of the last step only
  c.checkpoint_every = 100;
  c.eval_every = 100;    // the evaluation of the last step only
  c.eval_n = 20;
  c.classifier = test::tiny_classifier(dir);
  return c;
}

// Evaluation rows (those with a protocol) at `step`.
int evaluation_rows_at(const std::string& dir, int64_t step) {
  const auto rows = read_metrics(dir + "/metrics.jsonl");
  const auto texts = read_metric_texts(dir + "/metrics.jsonl");
  int n = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].at("step") == step && texts[i].count("protocol")) ++n;
  return n;
}

TrainHooks at_step(int64_t step, std::function<void()> fn) {
  TrainHooks hooks;
  hooks.push_back(make_callback_hook([step, fn](TrainState& s, RunContext&) {
    if (s.step == step) fn();
  }));
  return hooks;
}

TEST(OwedWork, ASigusr1AtTheLastStepStillEvaluatesAndExitsAsFinished) {
  const std::string dir = test::temp_dir("owed_stop_last");
  StopSignalGuard process_guard;  // as main() holds: the request outlives the run's own guard
  const TrainResult r = train(evaluated_run(dir), at_step(4, [] { std::raise(SIGUSR1); }));
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(r.step, 4);
  EXPECT_FALSE(requeue_requested());  // main() exits 0: nothing to requeue
  EXPECT_FALSE(stop_requested());
  EXPECT_EQ(evaluation_rows_at(dir, 4), 1);
  EXPECT_TRUE(fs::exists(dir + "/samples/step_0000004.png"));
  EXPECT_TRUE(fs::exists(dir + "/checkpoints/best.pt"));
}

TEST(OwedWork, ASecondStopEndsTheOwedWorkAndTheResumeFinishesIt) {
  const std::string dir = test::temp_dir("owed_resume");
  TrainConfig c = evaluated_run(dir);
  // Two requests at the last step: the first is held back for the owed work, the second ends it.
  const TrainResult r = train(c, at_step(4, [] {
                                std::raise(SIGTERM);
                                std::raise(SIGTERM);
                              }));
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.checkpoint, dir + "/checkpoints/step_0000004.pt");
  EXPECT_EQ(evaluation_rows_at(dir, 4), 0);
  EXPECT_FALSE(fs::exists(dir + "/samples/step_0000004.png"));

  c.resume = ResumeMode::kAuto;
  testing::internal::CaptureStderr();
  const TrainResult resumed = train(c);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(resumed.interrupted);
  EXPECT_NE(said.find("finishing its grid and evaluation"), std::string::npos) << said;
  EXPECT_EQ(evaluation_rows_at(dir, 4), 1);
  EXPECT_TRUE(fs::exists(dir + "/samples/step_0000004.png"));
  EXPECT_TRUE(fs::exists(dir + "/checkpoints/best.pt"));

  testing::internal::CaptureStderr();
  train(c);  // now nothing is owed
  const std::string again = testing::internal::GetCapturedStderr();
  EXPECT_NE(again.find("already at step 4 of 4; nothing to do"), std::string::npos) << again;
  EXPECT_EQ(evaluation_rows_at(dir, 4), 1);
}

}  // namespace
}  // namespace hamgan
