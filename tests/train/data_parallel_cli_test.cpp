// Data-parallel jobs as users start them: `hamgan train --nproc 2`, torchrun
// --no-python, and a rank killed mid-run.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "gan/checkpoint/run_dir.h"
#include "tests/common/process.h"
#include "gan/report/run_log.h"
#include "gan/train/train_state.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

std::string train_args(const std::string& run_dir, int64_t steps, int timeout = 60) {
  return std::string(test::hamgan_bin()) + " train" + test::tiny_cli_args() + " --steps " + std::to_string(steps) +
         " --threads 1 --dist_timeout " + std::to_string(timeout) + " --run_dir " + run_dir;
}

int training_rows(const std::string& run_dir) {
  int rows = 0;
  for (const auto& r : read_metrics(run_dir + "/metrics.jsonl")) rows += r.count("d_loss") ? 1 : 0;
  return rows;
}

TEST(DataParallelCli, NprocStartsTwoRanksThatWriteOneRun) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  const std::string run = test::temp_dir("dp_nproc") + "/run";
  std::string out;
  ASSERT_EQ(test::run_command(train_args(run, 3) + " --nproc 2", &out), 0) << out;
  EXPECT_NE(out.find("data-parallel over 2 ranks (hamgan train --nproc, gloo)"), std::string::npos) << out;
  EXPECT_NE(out.find("2 ranks finished"), std::string::npos) << out;
  EXPECT_EQ(training_rows(run), 3);  // rank 0 alone writes the log
  EXPECT_NE(test::file_contents(run + "/provenance.json").find("\"world_size\": 2"), std::string::npos);
  EXPECT_EQ(latest_checkpoint(run + "/checkpoints"), run + "/checkpoints/step_0000003.pt");
}

TEST(DataParallelCli, TorchrunNoPythonLaunch) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  if (test::run_command("command -v torchrun") != 0) REFERENCE_MISSING("torchrun is not installed (pip torch ships it)");
  const std::string run = test::temp_dir("dp_torchrun") + "/run";
  std::string out;
  const std::string cmd = "torchrun --standalone --nproc-per-node 2 --no-python " + train_args(run, 2);
  ASSERT_EQ(test::run_command(cmd, &out), 0) << out;
  EXPECT_NE(out.find("data-parallel over 2 ranks (torchrun, gloo)"), std::string::npos) << out;
  EXPECT_EQ(training_rows(run), 2);
  EXPECT_EQ(latest_checkpoint(run + "/checkpoints"), run + "/checkpoints/step_0000002.pt");
}

TEST(DataParallelCli, NprocUnderTorchrunIsRefused) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  std::string out;
  const std::string run = test::temp_dir("dp_nested") + "/run";
  EXPECT_EQ(test::run_command("RANK=0 WORLD_SIZE=2 " + train_args(run, 2) + " --nproc 2", &out), 1);
  EXPECT_NE(out.find("drop --nproc"), std::string::npos) << out;
}

pid_t start_rank(const std::string& run, int rank, const std::string& store, const std::string& log, int timeout) {
  const std::string r = std::to_string(rank);
  return test::spawn_shell("env RANK=" + r + " LOCAL_RANK=" + r + " WORLD_SIZE=2 HAMGAN_DIST_INIT=file://" + store +
                               " " + train_args(run, 1000000, timeout),
                           log);
}

// Rank 1 is killed (or stopped, SIGSTOP: a hang) after a checkpoint: rank 0
// ends within the timeout with one line naming rank 1 (a dead rank's closed
// connection fails the next collective at once; a hung one fails it at
// dist_timeout; the heartbeats name it), and the last checkpoint loads.
void expect_rank0_names_rank1(int signal, int timeout, double within) {
  const std::string dir = test::temp_dir("dp_fault_" + std::to_string(signal)), run = dir + "/run";
  const pid_t r0 = start_rank(run, 0, dir + "/store", dir + "/rank0.log", timeout);
  const pid_t r1 = start_rank(run, 1, dir + "/store", dir + "/rank1.log", timeout);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (latest_checkpoint(run + "/checkpoints").empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_FALSE(latest_checkpoint(run + "/checkpoints").empty()) << test::file_contents(dir + "/rank0.log");
  kill(r1, signal);
  const auto hit = std::chrono::steady_clock::now();
  int status = 0;
  const bool ended = test::wait_for_exit(r0, std::chrono::seconds(90), &status);
  ::kill(r1, SIGKILL);
  ::waitpid(r1, nullptr, 0);
  ASSERT_TRUE(ended) << "rank 0 still running 90 s after rank 1 got signal " << signal;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - hit).count();
  ::testing::Test::RecordProperty("seconds_to_exit", std::to_string(secs));
  std::printf("rank 0 ended %.1f s after rank 1 got signal %d\n", secs, signal);
  EXPECT_LT(secs, within);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string log = test::file_contents(dir + "/rank0.log");
  EXPECT_NE(log.find("rank 1 stopped answering"), std::string::npos) << log;
  const std::string latest = latest_checkpoint(run + "/checkpoints");
  TrainConfig cfg = test::tiny_config(run);
  TrainState state(cfg, torch::kCPU);
  EXPECT_NO_THROW(state.load(latest)) << latest;
  EXPECT_GE(state.step, 2);
  EXPECT_EQ(state.loaded_world_size, 2);
}

TEST(DataParallelCli, KilledRankEndsTheOtherWithinTheTimeoutAndTheCheckpointLoads) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  expect_rank0_names_rank1(SIGKILL, 30, 30.0);
}

TEST(DataParallelCli, HungRankEndsTheOtherAtTheTimeoutAndTheCheckpointLoads) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  expect_rank0_names_rank1(SIGSTOP, 5, 5.0 + 15.0);  // the timeout, then the heartbeat check and the save
}

// A SIGTERM to the launcher alone reaches every rank; they agree to stop after
// the same step, rank 0 checkpoints it, and no rank is left behind.
TEST(DataParallelCli, StoppingTheLauncherStopsEveryRankAfterACheckpoint) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  const std::string dir = test::temp_dir("dp_stop"), run = dir + "/run";
  // Its own process group, so that the test's signal reaches the launcher alone.
  const pid_t launcher = test::spawn_shell(train_args(run, 1000000) + " --nproc 2", dir + "/launcher.log", true);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (latest_checkpoint(run + "/checkpoints").empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_FALSE(latest_checkpoint(run + "/checkpoints").empty()) << test::file_contents(dir + "/launcher.log");
  kill(launcher, SIGTERM);
  int status = 0;
  ASSERT_TRUE(test::wait_for_exit(launcher, std::chrono::seconds(60), &status, /*group=*/true))
      << "the launcher still runs 60 s after SIGTERM";
  const std::string log = test::file_contents(dir + "/launcher.log");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << log;
  EXPECT_NE(log.find("2 ranks stopped (checkpoint saved)"), std::string::npos) << log;
  EXPECT_EQ(kill(-launcher, 0), -1) << "a rank outlived its launcher";  // nothing left in its process group
  // The checkpoint is of the step the ranks stopped at: the last row of the log.
  const auto rows = read_metrics(run + "/metrics.jsonl");
  ASSERT_FALSE(rows.empty());
  const int64_t last_step = static_cast<int64_t>(rows.back().at("step"));
  char name[32];
  std::snprintf(name, sizeof(name), "step_%07lld.pt", static_cast<long long>(last_step));
  EXPECT_EQ(latest_checkpoint(run + "/checkpoints"), run + "/checkpoints/" + name) << log;
}

}  // namespace
}  // namespace hamgan
