// Sampling and thread settings that used to hang, oversubscribe the machine or
// silently write the wrong thing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/common/process.h"
#include "core/errors.h"
#include "core/threads.h"
#include "data/image_io.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;
using test::run_command;

// One tiny trained run shared by the tests (2 steps).
class SampleReliability : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!test::hamgan_bin()) return;
    run_ = test::scratch_dir("reliability", "sample_run") + "/run";
    std::string out;
    ASSERT_EQ(run_command(std::string(test::hamgan_bin()) + " train --run_dir " + run_ + " --steps 2" +
                              test::tiny_cli_args() + " --tensorboard false 2>&1",
                          &out),
              0)
        << out;
  }
  void SetUp() override {
    if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  }
  static std::string sample(const std::string& args) {
    return std::string(test::hamgan_bin()) + " sample --checkpoint " + run_ + " --quiet --device cpu " + args + " 2>&1";
  }
  static std::string run_;
};
std::string SampleReliability::run_;

TEST_F(SampleReliability, JpegOutputIsAJpegGridNotADirectory) {
  const std::string out = test::scratch_dir("reliability", "jpeg") + "/grid.jpg";
  std::string text;
  ASSERT_EQ(run_command(sample("--n 20 --out " + out), &text), 0) << text;
  ASSERT_TRUE(fs::is_regular_file(out)) << text;
  const std::string png = fs::path(out).replace_extension(".png").string();
  ASSERT_EQ(run_command(sample("--n 20 --out " + png), &text), 0) << text;
  // The same grid both ways: JPEG (quality 95) within a few grey levels of the PNG.
  const torch::Tensor a = load_jpeg(out).to(torch::kFloat), b = load_png(png).to(torch::kFloat);
  ASSERT_EQ(a.sizes(), b.sizes());
  const double mse = (a - b).pow(2).mean().item<double>();
  EXPECT_GT(10 * std::log10(255.0 * 255.0 / std::max(mse, 1e-12)), 30.0);  // PSNR in dB
}

TEST_F(SampleReliability, AnUnknownImageExtensionIsRefusedBeforeAnyWork) {
  const std::string out = test::scratch_dir("reliability", "gif") + "/samples.gif";
  std::string text;
  EXPECT_EQ(run_command(sample("--n 20 --out " + out), &text), 1) << text;
  EXPECT_NE(text.find("unknown output type '.gif'"), std::string::npos) << text;
  EXPECT_EQ(text.rfind("hamgan: error: ", 0), 0u) << text;  // no "sample: " prefix before the error
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(SampleReliability, ATinyTruncationFinishes) {
  const std::string out = test::scratch_dir("reliability", "truncation") + "/z.npz";
  std::string text;
  EXPECT_EQ(run_command("timeout 120 " + sample("--n 64 --truncation 1e-9 --out " + out), &text), 0) << text;
  EXPECT_TRUE(fs::exists(out)) << text;
}

bool catches_signal(pid_t pid, int sig) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1;
  return false;
}

// Runs `cmd` (stderr to `log`), sends `sig` after `after_s` seconds, and returns
// its exit code, or -1 when the signal killed it or it ignored the signal for 30 s.
int exit_code_after_signal(const std::string& cmd, const std::string& log, int after_s, int sig) {
  const pid_t pid = test::spawn_shell(cmd, log);
  // Count the wait from when the handler is installed (/proc's SigCgt mask): on a
  // loaded machine loading LibTorch alone can take seconds.
  for (int i = 0; i < 600 && !catches_signal(pid, sig); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::this_thread::sleep_for(std::chrono::seconds(after_s));
  ::kill(pid, sig);
  int status = 0;
  if (!test::wait_for_exit(pid, std::chrono::seconds(30), &status)) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(SampleReliability, SigtermStopsSamplingWithinSecondsWritingNothing) {
  const std::string dir = test::scratch_dir("reliability", "sample_stop");
  const std::string cmd = sample("--n 2000000 --batch_size 16 --out " + dir + "/many.npz");
  const int code = exit_code_after_signal(cmd.substr(0, cmd.rfind(" 2>&1")), dir + "/log.txt", 3, SIGTERM);
  const std::string log = test::file_contents(dir + "/log.txt");
  EXPECT_EQ(code, 130) << log;
  // The signal may land while the BN statistics are recomputed or while images are
  // generated; either phase must stop with the one-line notice naming itself.
  EXPECT_EQ(log.rfind("hamgan: stopped: "), log.find("hamgan: stopped: ")) << log;
  const bool named = log.find("hamgan: stopped: sample: stopped by request") != std::string::npos ||
                     log.find("hamgan: stopped: standing statistics: stopped by request") != std::string::npos;
  EXPECT_TRUE(named) << log;
  EXPECT_FALSE(fs::exists(dir + "/many.npz"));
}

TEST(StopSignals, ClassifierTrainingStopsWithinSecondsWritingNothing) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::scratch_dir("reliability", "classifier_stop");
  const std::string cmd = std::string(test::hamgan_bin()) + " train-classifier --device cpu --quiet --out " + dir +
                          "/cls.pt";
  EXPECT_EQ(exit_code_after_signal(cmd, dir + "/log.txt", 4, SIGINT), 130) << test::file_contents(dir + "/log.txt");
  EXPECT_FALSE(fs::exists(dir + "/cls.pt"));
}

TEST(Threads, ARequestAboveTheCoreCountIsCappedWithAWarning) {
  const int cores = available_cores();
  const int before = torch::get_num_threads();
  testing::internal::CaptureStderr();
  EXPECT_EQ(apply_thread_count(100000), cores);
  const std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find("threads = 100000 exceeds the " + std::to_string(cores) + " cores"), std::string::npos)
      << warning;
  EXPECT_EQ(torch::get_num_threads(), cores);
  EXPECT_THROW(apply_thread_count(-1), ConfigError);
  torch::set_num_threads(before);
}

// Two runs' samples in one folder would be scored by fid as one distribution: a folder that
// holds files is refused before any work; an empty one is filled; no temporary is left.
TEST_F(SampleReliability, AFolderThatHoldsSamplesIsRefusedAndAnEmptyOneIsFilled) {
  const std::string dir = test::scratch_dir("reliability", "sample_into_folder"), out = dir + "/pngs";
  fs::create_directories(out);  // empty: accepted
  std::string text;
  ASSERT_EQ(run_command(sample("--n 6 --out " + out), &text), 0) << text;
  auto count = [&] {
    int n = 0;
    for (const auto& e : fs::recursive_directory_iterator(out)) n += e.is_regular_file();
    return n;
  };
  EXPECT_EQ(count(), 6);
  EXPECT_EQ(run_command(sample("--n 3 --seed 9 --out " + out), &text), 1) << text;
  EXPECT_NE(text.find("hamgan: error: sample: --out " + out + " already holds files"), std::string::npos) << text;
  EXPECT_EQ(count(), 6);  // nothing added to the earlier samples
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

}  // namespace
}  // namespace hamgan
