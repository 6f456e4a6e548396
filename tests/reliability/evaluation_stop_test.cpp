// A stop during an evaluation in training, on a real process: the evaluation
// is abandoned within an Inception block (before: the CPU batch, its Fréchet
// distance, its row in the log and best.pt were all finished, then one more
// step ran, 22 s after SIGTERM), and the checkpoint of the step is the last.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <thread>

#include "data/dataset.h"
#include "gan/checkpoint/archive.h"
#include "gan/checkpoint/run_dir.h"
#include "metrics/stats.h"
#include "tests/common/python_reference.h"
#include "tests/common/reliability_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Waits up to 10 minutes for `ready`; the time it became true.
Clock::time_point when(const std::function<bool()>& ready) {
  const auto until = Clock::now() + std::chrono::minutes(10);
  while (!ready() && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return Clock::now();
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(TrainReliability, AStopDuringAnInceptionEvaluationAbandonsItWithinABlockAndCheckpoints) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  if (!fs::exists(kDefaultFashionMnistDir)) GTEST_SKIP() << "Fashion-MNIST not installed";
  std::string weights_dir;
  CACHED_REFERENCE("inception_reference.py", "inception", weights_dir);  // random pytorch-fid weights
  const std::string dir = test::dir_for("stop_in_evaluation"), run = dir + "/run";
  // Statistics of a unit Gaussian as the reference: the distance is computed, its value is not judged.
  save_stats(dir + "/ref.npz", {torch::zeros({2048}, torch::kFloat64), torch::eye(2048, torch::kFloat64), 100}, false);
  // Each evaluation: one CPU batch of 50 images through the Inception on one thread, then the
  // Fréchet distance of 2048-d statistics; no standing statistics, so the Inception starts at once.
  const std::string cmd = test::train_cmd(run, 100000,
                                          "--eval_every 2 --eval_n 50 --eval_metrics fid_inception --standing_stats 0 "
                                          "--eval_reference " + dir + "/ref.npz --inception " + weights_dir +
                                              "/weights.pth");
  const pid_t pid = test::spawn_shell(cmd.substr(0, cmd.rfind(" 2>&1")), dir + "/out.txt");
  const std::string log = run + "/metrics.jsonl";
  auto grid_of = [&](const char* step) {
    return [=] { return fs::exists(run + "/samples/step_000000" + step + ".png"); };
  };

  // The evaluation of step 2 runs whole: from its step's grid (the hook before it) to its row in the log.
  const auto started = when(grid_of("2"));
  const auto finished = when([&] { return test::file_contents(log).find("\"fid_inception\"") != std::string::npos; });
  const double evaluation_s = std::chrono::duration<double>(finished - started).count();

  // Step 4's is stopped once the Inception is at work.
  when(grid_of("4"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto signalled = Clock::now();
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_TRUE(test::wait_for_exit(pid, std::chrono::minutes(5), &status));
  const double stop_s = std::chrono::duration<double>(Clock::now() - signalled).count();
  const std::string out = test::file_contents(dir + "/out.txt");

  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;  // as any stop of training: checkpointed, then ended
  EXPECT_NE(out.find("train: stopped at step 4;"), std::string::npos) << out;
  EXPECT_EQ(latest_checkpoint(run + "/checkpoints"), run + "/checkpoints/step_0000004.pt") << out;
  EXPECT_EQ(count(test::file_contents(log), "\"fid_inception\""), 1u) << "the abandoned evaluation left a row";
  CheckpointReader best(run + "/checkpoints/best.pt");
  EXPECT_EQ(best.get_int("best_step"), 2);
  EXPECT_GT(evaluation_s, 0.0);
  EXPECT_LT(stop_s, evaluation_s / 3) << "stopped " << stop_s << " s after SIGTERM; an evaluation takes "
                                      << evaluation_s << " s";
  std::cerr << "evaluation " << evaluation_s << " s; stopped " << stop_s << " s after SIGTERM\n";
}

}  // namespace
}  // namespace hamgan
