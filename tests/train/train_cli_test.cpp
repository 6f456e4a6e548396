// `hamgan train|sample|plot` end to end through the binary ($HAMGAN_BIN).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "data/hdf5_writer.h"
#include "data/image_io.h"
#include "metrics/npz.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

// Writes a tiny experiment file and trains it for 2 steps into <dir>/run (once per test binary run).
class TrainCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!test::hamgan_bin()) return;
    dir_ = test::temp_dir("cli");
    config_ = dir_ + "/tiny.toml";
    std::ofstream(config_) << "# tiny run\nresolution = 32\nimage_channels = 1\nnum_classes = 10\nz_dim = 8\n"
                              "g_ch = 4\nd_ch = 4\ng_block = \"ham\"\nd_block = \"ham\"\nham_rank = 2\n"
                              "batch_size = 4\nsteps = 2\nema_start = 1\nema_decay = 0.9\nlog_every = 1\n"
                              "sample_every = 2\ncheckpoint_every = 2\ndevice = \"cpu\"\n";
    status_ = test::run_command(std::string(test::hamgan_bin()) + " train --quiet --config " + config_ +
                                    " --run-dir " + dir_ + "/run",
                                &output_);
  }
  void SetUp() override {
    if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
    ASSERT_EQ(status_, 0) << output_;
  }
  static std::string run(const std::string& args, int* status = nullptr) {
    std::string out;
    const int s = test::run_command(std::string(test::hamgan_bin()) + " " + args, &out);
    if (status) *status = s;
    return out;
  }
  static inline std::string dir_, config_, output_;
  static inline int status_ = -1;
};

TEST_F(TrainCli, RunDirHoldsConfigMetricsSamplesCheckpointsAndEvents) {
  const std::string run_dir = dir_ + "/run";
  EXPECT_TRUE(fs::exists(run_dir + "/config.toml"));
  EXPECT_TRUE(fs::exists(run_dir + "/metrics.jsonl"));
  EXPECT_TRUE(fs::exists(run_dir + "/samples/step_0000002.png"));
  EXPECT_TRUE(fs::exists(run_dir + "/checkpoints/step_0000002.pt"));
  bool events = false;
  for (const auto& e : fs::directory_iterator(run_dir))
    events |= e.path().filename().string().rfind("events.out.tfevents.", 0) == 0;
  EXPECT_TRUE(events);
}

TEST_F(TrainCli, ResolvedConfigReparsesToTheSameValuesAndReproducesTheRun) {
  const std::string a = dir_ + "/run/config.toml";
  // Python's TOML parser reads the values the run used.
  std::string out;
  ASSERT_EQ(test::run_command(HAMGAN_PYTHON " -c \"import tomllib; c=tomllib.load(open('" + a +
                                  "','rb')); print(c['batch_size'], c['g_block'], float(c['g_lr']), float(c['d_lr']),"
                                  " float(c['beta1']), c['steps'], c['loss'], c['ham_rank'])\"",
                              &out),
            0)
      << out;
  EXPECT_EQ(out, "4 ham 0.0001 0.0004 0.0 2 hinge 2\n");
  // Training again from the written file (only the run dir changed) gives the same file and bit-identical weights.
  int status = 0;
  out = run("train --quiet --config " + a + " --run-dir " + dir_ + "/again", &status);
  ASSERT_EQ(status, 0) << out;
  std::string ta = test::file_contents(a), tb = test::file_contents(dir_ + "/again/config.toml");
  auto drop_run_dir = [](std::string t) {
    std::istringstream in(t);
    std::string line, kept;
    while (std::getline(in, line))
      if (line.rfind("run_dir", 0) != 0) kept += line + "\n";
    return kept;
  };
  EXPECT_EQ(drop_run_dir(ta), drop_run_dir(tb));
  EXPECT_EQ(test::file_contents(dir_ + "/run/samples/step_0000002.png"), test::file_contents(dir_ + "/again/samples/step_0000002.png"));
}

TEST_F(TrainCli, UnknownConfigKeyIsAnErrorNamingTheKey) {
  const std::string bad = dir_ + "/bad.toml";
  std::ofstream(bad) << "batch_size = 4\nbatchsize = 8\n";
  int status = 0;
  const std::string out = run("train --config " + bad + " --run-dir " + dir_ + "/bad", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("batchsize"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir_ + "/bad/checkpoints"));
}

TEST_F(TrainCli, ResumeLogsItsStepAndAnExistingRunNeedsResume) {
  const std::string copy = dir_ + "/resumed";
  fs::copy(dir_ + "/run", copy, fs::copy_options::recursive);
  int status = 0;
  std::string out = run("train --quiet --config " + config_ + " --run-dir " + copy + " --steps 3", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("--resume"), std::string::npos) << out;
  out = run("train --quiet --config " + config_ + " --run-dir " + copy + " --steps 3 --resume", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("resumed from step 2"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(copy + "/checkpoints/step_0000003.pt"));
}

TEST_F(TrainCli, SampleWritesNpzHdf5PngsAndGridsThatAgree) {
  const std::string ck = dir_ + "/run", s = dir_ + "/samples";
  int status = 0;
  std::string out;
  for (const auto& target : {s + "/x.npz", s + "/x.hdf5", s + "/pngs", s + "/grid.png"}) {
    out = run("sample --quiet --checkpoint " + ck + " --n 12 --seed 5 --grid --out " + target, &status);
    ASSERT_EQ(status, 0) << out;
  }
  ASSERT_EQ(test::run_command(HAMGAN_PYTHON " " + test::python_script("check_samples.py") + " " + s + "/x.npz " + s +
                                  "/x.hdf5 12 1 32 10",
                              &out),
            0)
      << out;
  // PNG files (ImageFolder layout) hold the same pixels as the array file.
  const NpzArrays arrays = read_npz(s + "/x.npz");
  const torch::Tensor x = arrays.at("x");
  for (int64_t i : {0, 7, 11}) {
    char cls[8], name[16];
    std::snprintf(cls, sizeof(cls), "%04lld", static_cast<long long>(i % 10));
    std::snprintf(name, sizeof(name), "%06lld.png", static_cast<long long>(i));
    EXPECT_TRUE(torch::equal(load_png(s + "/pngs/" + cls + "/" + name), x[i])) << i;
  }
  EXPECT_TRUE(fs::exists(s + "/pngs/grid.png"));
  EXPECT_EQ(load_png(s + "/grid.png").size(2), 10 * (32 + 2) + 2);  // one column per class
  // One class only, and the raw weights differ from the EMA ones.
  out = run("sample --quiet --checkpoint " + ck + " --n 6 --class 3 --out " + s + "/c3.npz", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_TRUE(torch::all(read_npz(s + "/c3.npz").at("y") == 3).item<bool>());
  out = run("sample --quiet --checkpoint " + ck + " --n 12 --seed 5 --raw --out " + s + "/raw.npz", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_FALSE(torch::equal(read_npz(s + "/raw.npz").at("x"), x));
  out = run("sample --quiet --checkpoint " + ck + " --n 6 --class 10 --out " + s + "/c10.npz", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("class 10"), std::string::npos) << out;
}

TEST_F(TrainCli, PlotRendersTheRunsCurves) {
  int status = 0;
  const std::string out = run("plot " + dir_ + "/run", &status);
  EXPECT_EQ(status, 0) << out;
  const torch::Tensor img = load_png(dir_ + "/run/curves.png");
  EXPECT_EQ(img.size(0), 3);
  EXPECT_GT((img != 255).sum().item<int64_t>(), 1000);
}

// A compressed file in class order under shuffle windows: refused before the
// run directory exists, naming the rewrite that fixes it.
TEST_F(TrainCli, AClassSortedChunkedFileIsRefusedBeforeAnythingIsWritten) {
  const std::string file = dir_ + "/class_sorted.hdf5", run_dir = dir_ + "/sorted_run";
  {
    Hdf5Writer w(file, 1, 32, 32, 3000, "lzf");  // 10 classes of 300 in order, 6 chunks
    auto images = torch::randint(0, 256, {3000, 1, 32, 32}, torch::kUInt8);
    auto labels = torch::arange(3000, torch::kLong).div(300, "floor");
    w.append(images.data_ptr<uint8_t>(), labels.data_ptr<int64_t>(), 3000);
    w.finish(10);
  }
  int status = 0;
  const std::string out = run("train --quiet --config " + config_ + " --dataset " + file +
                                  " --shuffle_window 1 --batch_size 64 --run-dir " + run_dir,
                              &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find(file + " (NCHW) stores its images in class order"), std::string::npos) << out;
  EXPECT_NE(out.find("--shuffle"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(run_dir));
}

}  // namespace
}  // namespace hamgan
