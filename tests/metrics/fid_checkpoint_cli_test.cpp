// `hamgan fid` / `hamgan fid-stats` on a generator checkpoint through the binary:
// the command builds the checkpoint source itself, on the --device asked for.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <regex>

#include "data/image_io.h"
#include "metrics/classifier.h"
#include "metrics/npz.h"
#include "metrics/stats.h"
#include "tests/metrics/helpers.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

// A two-step run on a 20-image folder (nothing needs installing) and an untrained
// classifier as the feature extractor, made once for the suite.
class FidCheckpointCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!test::hamgan_bin()) return;
    dir_ = test::temp_dir("fid_checkpoint");
    torch::manual_seed(0);
    for (int k = 0; k < 10; ++k) {
      const std::string cls = dir_ + "/data/c" + std::to_string(k);
      fs::create_directories(cls);
      for (int i = 0; i < 2; ++i)
        save_png(torch::randint(0, 256, {1, 32, 32}, torch::kUInt8), cls + "/" + std::to_string(i) + ".png");
    }
    ClassifierConfig cc;
    cc.width = 8;
    cc.feature_dim = 16;
    FeatureClassifier net(cc);
    save_classifier(dir_ + "/cls.pt", net);
    status_ = run("train --dataset " + dir_ + "/data --run-dir " + dir_ + "/run --steps 2 --resolution 32"
                  " --image_channels 1 --num_classes 10 --z_dim 8 --g_ch 4 --d_ch 4 --g_block ham --d_block ham"
                  " --ham_rank 2 --batch_size 4 --ema_start 1 --ema_decay 0.9 --log_every 1 --sample_every 2"
                  " --checkpoint_every 2 --device cpu --quiet",
                  &train_output_);
  }
  void SetUp() override {
    if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
    ASSERT_EQ(status_, 0) << train_output_;
  }
  static int run(const std::string& args, std::string* out) {
    return test::run_command(std::string(test::hamgan_bin()) + " " + args, out);
  }
  // The folder holds grey PNGs, read as grey for the grey classifier.
  static std::string features() {
    return " --features classifier:" + dir_ + "/cls.pt --channels 1 --standing_stats 1 --n 20";
  }
  static inline std::string dir_, train_output_;
  static inline int status_ = -1;
};

double fid_of(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex("FID: ([-+0-9.eE]+)")) ? std::stod(m[1].str()) : NAN;
}

TEST_F(FidCheckpointCli, RunDirAgainstDataSetOnTheRequestedDevice) {
  std::string out;
  ASSERT_EQ(run("fid " + dir_ + "/run " + dir_ + "/data" + features() + " --batch 8 --device cpu", &out), 0) << out;
  EXPECT_TRUE(std::isfinite(fid_of(out))) << out;
  EXPECT_NE(out.find("A: generator "), std::string::npos) << out;
  EXPECT_NE(out.find("EMA weights on cpu, 20 samples, labels balanced"), std::string::npos) << out;
}

// Statistics written from the run in one batching equal the images made in another: FID 0.
TEST_F(FidCheckpointCli, StatsOfTheRunMatchItsImagesWhateverTheBatching) {
  std::string out;
  ASSERT_EQ(run("fid-stats " + dir_ + "/run --out " + dir_ + "/run.npz" + features() + " --batch 8 --device cpu", &out), 0)
      << out;
  auto s = read_npz(dir_ + "/run.npz");
  EXPECT_EQ(s["n"].item<int64_t>(), 20);
  ASSERT_EQ(run("fid " + dir_ + "/run.npz " + dir_ + "/run" + features() + " --batch 7 --device cpu", &out), 0) << out;
  EXPECT_NEAR(fid_of(out), 0.0, 1e-6 * s["sigma"].trace().item<double>() + 1e-9) << out;
}

// Intra-class FID pairs each class G was asked for with that class's images; the
// generator is the side PRDC and the bootstrap take as generated, wherever it stands.
TEST_F(FidCheckpointCli, ClassMetricsUseTheSampledLabels) {
  std::string out;
  ASSERT_EQ(run("fid " + dir_ + "/data " + dir_ + "/run" + features() +
                    " --batch 8 --device cpu --intra_class --prdc --bootstrap 5",
                &out),
            0)
      << out;
  EXPECT_NE(out.find("over 10 classes; worst: class "), std::string::npos) << out;  // 2 samples of each class a side
  EXPECT_NE(out.find("(k=3, B generated, A real)"), std::string::npos) << out;
  EXPECT_NE(out.find("(bootstrap 5, resampling B, seed 0)"), std::string::npos) << out;
}

// --repeats k: k disjoint seed ranges of n images; the first is the plain command's samples.
TEST_F(FidCheckpointCli, RepeatsPrintEachSeedRangeAndTheirMinMeanStd) {
  std::string plain, out;
  ASSERT_EQ(run("fid " + dir_ + "/run " + dir_ + "/data" + features() + " --device cpu", &plain), 0) << plain;
  ASSERT_EQ(run("fid " + dir_ + "/run " + dir_ + "/data" + features() + " --device cpu --repeats 3", &out), 0) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("FID per seed range: ([-+0-9.eE]+) \\(images 0–19\\) ([-+0-9.eE]+) "
                                                   "\\(images 20–39\\) ([-+0-9.eE]+) \\(images 40–59\\)")))
      << out;
  const double f[3] = {std::stod(m[1].str()), std::stod(m[2].str()), std::stod(m[3].str())};
  EXPECT_NEAR(f[0], fid_of(plain), 1e-9 * fid_of(plain)) << plain << out;
  EXPECT_NE(f[0], f[1]);  // other images, another value
  const double mean = (f[0] + f[1] + f[2]) / 3;
  const double std = std::sqrt(((f[0] - mean) * (f[0] - mean) + (f[1] - mean) * (f[1] - mean) +
                                (f[2] - mean) * (f[2] - mean)) / 2);
  ASSERT_TRUE(std::regex_search(out, m, std::regex("FID over 3 seed ranges: min ([-+0-9.eE]+), mean ([-+0-9.eE]+), "
                                                   "std ([-+0-9.eE]+)")))
      << out;
  EXPECT_NEAR(std::stod(m[1].str()), std::min({f[0], f[1], f[2]}), 1e-8 * mean);
  EXPECT_NEAR(std::stod(m[2].str()), mean, 1e-8 * mean);
  EXPECT_NEAR(std::stod(m[3].str()), std, 1e-7 * mean);
  EXPECT_EQ(run("fid " + dir_ + "/data " + dir_ + "/data" + features() + " --repeats 2", &out), 1) << out;
  EXPECT_NE(out.find("--repeats 2 needs exactly one generator checkpoint"), std::string::npos) << out;
}

// The label protocol changes the classes G is asked for, and is stamped.
TEST_F(FidCheckpointCli, LabelProtocolIsDrawnAndStamped) {
  std::string balanced, random, dataset;
  const std::string fid = "fid " + dir_ + "/run " + dir_ + "/data" + features() + " --device cpu";
  ASSERT_EQ(run(fid, &balanced), 0) << balanced;
  ASSERT_EQ(run(fid + " --labels random", &random), 0) << random;
  ASSERT_EQ(run(fid + " --labels dataset", &dataset), 0) << dataset;
  EXPECT_NE(fid_of(balanced), fid_of(random));
  EXPECT_NE(random.find("labels random"), std::string::npos) << random;
  EXPECT_NE(dataset.find("labels dataset (class frequencies of " + dir_ + "/data)"), std::string::npos) << dataset;
  std::string out;
  ASSERT_EQ(run("fid-stats " + dir_ + "/run --out " + dir_ + "/random.npz --labels random" + features() + " --device cpu",
                &out),
            0)
      << out;
  EXPECT_EQ(load_stats(dir_ + "/random.npz").protocol.labels, "random");
  EXPECT_EQ(run("fid-stats " + dir_ + "/run --out " + dir_ + "/d.npz --labels dataset" + features(), &out), 1) << out;
  EXPECT_NE(out.find("--labels dataset needs --label_data DATA"), std::string::npos) << out;
}

// Before, the generator was loaded on "auto" whatever --device said.
TEST_F(FidCheckpointCli, DeviceIsHonoured) {
  std::string out;
  if (torch::cuda::is_available()) {
    ASSERT_EQ(run("fid " + dir_ + "/run " + dir_ + "/data" + features() + " --device cuda:0", &out), 0) << out;
    EXPECT_NE(out.find("EMA weights on cuda:0"), std::string::npos) << out;
    return;
  }
  EXPECT_EQ(run("fid " + dir_ + "/run " + dir_ + "/data" + features() + " --device cuda", &out), 1) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_EQ(out.rfind("hamgan: error: ", 0), 0u) << out;
  EXPECT_NE(out.find("CUDA is not available"), std::string::npos) << out;
}

}  // namespace
}  // namespace hamgan
