// `hamgan train --nproc` refuses what would fail in every rank before starting
// any (too many ranks, a batch that does not split, a run directory another run
// holds), its ranks end with it when it is killed, and a rank killed by a
// signal is reported as such.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/dir_lock.h"
#include "tests/common/process.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string train_cmd(const std::string& run_dir, const std::string& extra) {
  // `timeout`: a launch that hangs (as one once did on a held run directory) fails the test instead.
  return "timeout 120 " + std::string(test::hamgan_bin()) + " train" + test::tiny_cli_args() +
         " --threads 1 --dist_timeout 600 --run_dir " + run_dir + " " + extra;
}

// A refusal before any rank starts: 1-2 s each measured on a busy 2-core machine. Ranks that started
// and waited would take the 600 s dist_timeout (the command's `timeout 120` ends them first), so 100 s
// leaves a loaded machine room and still tells the two apart.
constexpr std::chrono::seconds kRefusedBefore(100);

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(LauncherChecks, WhatEveryRankWouldFailOnIsOneLineBeforeAnyStarts) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  const std::string dir = test::temp_dir("launcher_checks");
  const struct {
    std::string extra, expected;
  } cases[] = {{"--steps 2 --nproc 1000", "--nproc: 1000 ranks but this machine gives this process"},
               {"--steps 2 --nproc 2 --accumulate 4", "accumulate: 4 micro-batches do not split the 2 images of each of 2 ranks"}};
  int i = 0;
  for (const auto& c : cases) {
    std::string out;
    const auto start = Clock::now();
    EXPECT_EQ(test::run_command(train_cmd(dir + "/run" + std::to_string(i++), c.extra), &out), 1) << out;
    EXPECT_NE(out.find("hamgan: error: " + c.expected), std::string::npos) << out;
    EXPECT_EQ(count(out, "hamgan: error:"), 1u) << out;  // not once per rank
    EXPECT_EQ(out.find("rank 0"), std::string::npos) << out;
    EXPECT_LT(Clock::now() - start, kRefusedBefore) << out;
  }
}

TEST(LauncherChecks, ARunDirectoryAnotherRunHoldsIsRefusedBeforeTheRanksWait) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  const std::string run = test::temp_dir("launcher_lock") + "/run";
  const DirectoryLock held(run);
  std::string out;
  const auto start = Clock::now();
  EXPECT_EQ(test::run_command(train_cmd(run, "--steps 2 --nproc 2"), &out), 1) << out;
  EXPECT_NE(out.find("hamgan: error: "), std::string::npos) << out;
  EXPECT_NE(out.find(std::to_string(getpid())), std::string::npos) << out;  // names the holder
  EXPECT_EQ(count(out, "hamgan: error:"), 1u) << out;
  EXPECT_LT(Clock::now() - start, kRefusedBefore) << out;
}

std::vector<pid_t> children_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  std::vector<pid_t> out;
  for (pid_t c; in >> c;) out.push_back(c);
  return out;
}

bool running(pid_t pid) {  // alive and not a zombie waiting for its new parent to reap it
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

TEST(LauncherChecks, RanksEndWhenTheirLauncherIsKilled) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  const std::string dir = test::temp_dir("launcher_orphans");
  const pid_t launcher = test::spawn_shell(
      std::string(test::hamgan_bin()) + " train" + test::tiny_cli_args() +
          " --threads 1 --steps 100000 --nproc 2 --run_dir " + dir + "/run",
      dir + "/log.txt", /*own_group=*/true);
  std::vector<pid_t> ranks;
  for (int i = 0; i < 600 && ranks.size() < 2; ++i) {  // up to 60 s on a loaded machine
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ranks = children_of(launcher);
  }
  ASSERT_EQ(ranks.size(), 2u) << test::file_contents(dir + "/log.txt");
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the ranks are past their start
  ::kill(launcher, SIGKILL);
  int status = 0;
  ASSERT_TRUE(test::wait_for_exit(launcher, std::chrono::seconds(10), &status));
  const auto until = Clock::now() + std::chrono::seconds(90);
  bool alive = true;
  while (alive && Clock::now() < until) {
    alive = running(ranks[0]) || running(ranks[1]);
    if (alive) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (alive) ::kill(-launcher, SIGKILL);  // the group: leave no orphan behind the test either
  EXPECT_FALSE(alive) << "ranks outlived their killed launcher\n" << test::file_contents(dir + "/log.txt");
}

// The RANK a rank of the launcher was started as, from its environment.
int rank_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  for (std::string var; std::getline(in, var, '\0');)
    if (var.rfind("RANK=", 0) == 0) return std::stoi(var.substr(5));
  return -1;
}

// A rank killed by SIGKILL (as by the OOM killer) printed nothing: the launcher
// says so, instead of pointing at an error of its own "printed above"; the
// surviving rank's error is printed once.
TEST(LauncherChecks, ARankKilledBySignalIsReportedAsKilledAndSilent) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  const std::string dir = test::temp_dir("launcher_sigkill"), run = dir + "/run";
  const pid_t launcher = test::spawn_shell(
      std::string(test::hamgan_bin()) + " train" + test::tiny_cli_args() +
          " --threads 1 --steps 100000 --dist_timeout 10 --nproc 2 --run_dir " + run,
      dir + "/log.txt", /*own_group=*/true);
  const auto until = Clock::now() + std::chrono::seconds(120);
  while (!fs::exists(run + "/checkpoints/latest") && Clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  pid_t rank1 = -1;
  for (pid_t p : children_of(launcher))
    if (rank_of(p) == 1) rank1 = p;
  if (rank1 < 0) ::kill(-launcher, SIGKILL);
  ASSERT_GT(rank1, 0) << test::file_contents(dir + "/log.txt");
  ::kill(rank1, SIGKILL);
  int status = 0;
  ASSERT_TRUE(test::wait_for_exit(launcher, std::chrono::seconds(60), &status, /*group=*/true));
  const std::string out = test::file_contents(dir + "/log.txt");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << out;
  EXPECT_NE(out.find("hamgan: error: train --nproc: rank 1 of 2 was killed by signal 9 (SIGKILL: the kernel's OOM "
                     "killer (see dmesg), or kill -9) and printed no error of its own; the other ranks were stopped"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("printed above"), std::string::npos) << out;
  EXPECT_EQ(count(out, "hamgan: error: distributed: rank 0"), 1u) << out;  // rank 0's own, once
  EXPECT_EQ(count(out, "hamgan: error:"), 2u) << out;
}

}  // namespace
}  // namespace hamgan
