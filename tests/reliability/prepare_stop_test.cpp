// `prepare` honours a stop that arrives as soon as the process can catch it,
// before its write phase: exit 130 (75 after SIGUSR1), nothing written.
// Before: its own handlers, installed at the write phase, dropped the earlier
// request; it wrote everything and exited 0 (75 after SIGUSR1, output kept).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "data/dataset.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

// Whether process `pid` catches signal `sig` (its SigCgt mask in /proc).
bool catches(pid_t pid, int sig) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1;
  return false;
}

struct Stopped {
  int status = -1;  // exit status, -1 when killed by a signal
  std::string err;
  bool output = false, temporary = false;
};

// Starts `prepare` of the Fashion-MNIST test split at 256x256 on one thread
// (seconds of work) and sends `sig` as soon as the process catches it.
Stopped prepare_stopped_by(int sig, const std::string& dir) {
  const std::string out = dir + "/out.hdf5", err = dir + "/err.txt";
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen(err.c_str(), "w", stderr);
    std::freopen("/dev/null", "w", stdout);
    execl(test::hamgan_bin(), "hamgan", "prepare", "--split", "test", "--size", "256", "--idx_resize", "--workers",
          "1", "--no_progress", "--output", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int st = 0;
  bool ended = false;  // before catching anything: an exec failure
  for (int i = 0; i < 30000 && !catches(pid, sig) && !ended; ++i) {  // up to 60 s on a loaded machine
    usleep(2000);
    ended = waitpid(pid, &st, WNOHANG) == pid;
  }
  if (!ended) {
    kill(pid, sig);
    waitpid(pid, &st, 0);
  }
  Stopped r;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.err = test::file_contents(err);
  r.output = std::filesystem::exists(out);
  for (const auto& e : std::filesystem::directory_iterator(dir))
    r.temporary |= e.path().filename().string().rfind("out.hdf5.tmp.", 0) == 0;
  return r;
}

class PrepareStop : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
    if (!std::filesystem::exists(std::string(kDefaultFashionMnistDir) + "/t10k-images-idx3-ubyte.gz"))
      GTEST_SKIP() << "no Fashion-MNIST";
  }
};

TEST_F(PrepareStop, ASigtermBeforeTheWritePhaseIsKeptAndEndsItAsAStop) {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    const Stopped r = prepare_stopped_by(sig, test::scratch_dir("reliability", "prepare_stop_" + std::to_string(sig)));
    EXPECT_EQ(r.status, 130) << sig << ": " << r.err;
    EXPECT_EQ(r.err.rfind("hamgan: stopped: ", 0), 0u) << r.err;
    EXPECT_FALSE(r.output) << sig;
    EXPECT_FALSE(r.temporary) << sig;
  }
}

TEST_F(PrepareStop, Sigusr1EndsItForARequeueWithNothingWritten) {
  const Stopped r = prepare_stopped_by(SIGUSR1, test::scratch_dir("reliability", "prepare_usr1"));
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_EQ(r.err.rfind("hamgan: stopped: ", 0), 0u) << r.err;
  EXPECT_FALSE(r.output);
  EXPECT_FALSE(r.temporary);
}

}  // namespace
}  // namespace hamgan
