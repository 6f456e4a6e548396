// A domain classifier that was trained on other images (the Fashion-MNIST one,
// 1 channel and 10 classes, on an RGB data set of 2 classes) is refused before
// any work by training and by every command that takes one, in one line naming
// the file, both sides and the command that makes a fitting one (before: it was
// accepted, and scored such a run's class-consistency 0 and fid_classifier
// 0.0017). The log says which real images fid_classifier compares with.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/dataset.h"
#include "data/image_io.h"
#include "gan/checkpoint/run_dir.h"
#include "metrics/classifier.h"
#include "tests/common/reliability_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;
using test::error_line;
using test::run_command;

// An image folder of 2 classes × 6 random 32×32 RGB PNGs.
std::string rgb_two_classes(const std::string& dir) {
  torch::manual_seed(0);
  for (const char* cls : {"cat", "dog"}) {
    fs::create_directories(dir + "/data/" + cls);
    for (int i = 0; i < 6; ++i)
      save_png(torch::randint(0, 256, {3, 32, 32}, torch::kUInt8),
               dir + "/data/" + cls + "/" + std::to_string(i) + ".png");
  }
  return dir + "/data";
}

// An untrained classifier file for `channels`-channel images of `classes` classes.
std::string classifier(const std::string& path, int64_t channels, int64_t classes) {
  ClassifierConfig c;
  c.channels = channels;
  c.num_classes = classes;
  c.width = 4;
  c.feature_dim = 16;
  FeatureClassifier net(c);
  save_classifier(path, net);
  return path;
}

// `hamgan train` of a tiny RGB 2-class model on `data`, with its output.
std::string train_rgb(const std::string& data, const std::string& run, const std::string& extra, int* status) {
  std::string out;
  *status = run_command(std::string(test::hamgan_bin()) + " train --dataset " + data + " --run_dir " + run +
                            " --steps 2 --resolution 32 --image_channels 3 --num_classes 2 --z_dim 8 --g_ch 4 --d_ch 4"
                            " --g_block ham --d_block ham --ham_rank 2 --batch_size 4 --ema_start 1 --ema_decay 0.9"
                            " --checkpoint_every 2 --device cpu --quiet --tensorboard false --threads 1 " + extra +
                            " 2>&1",
                        &out);
  return out;
}

std::string fix(const std::string& data, const std::string& use) {
  return ": its classes and features would not describe these images; train one on this data with `hamgan "
         "train-classifier --dataset " + data + " --channels 3 --image_size 32 --out FILE` and pass " + use;
}

TEST(ClassifierFit, TrainingRefusesAClassifierOfOtherImagesAtItsStart) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::dir_for("classifier_fit_train");
  const std::string data = rgb_two_classes(dir), fashion = classifier(dir + "/fashion.pt", 1, 10);
  int status = 0;
  std::string out = train_rgb(data, dir + "/run", "--eval_every 2 --eval_n 8 --classifier " + fashion, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_EQ(error_line(out), "hamgan: error: train: classifier " + fashion + " takes 1-channel images of 10 classes, "
                                 "but the model makes 3-channel images of 2 classes" + fix(data, "--classifier FILE"))
      << out;
  EXPECT_TRUE(test::lines_starting(out, "train: ").empty()) << out;  // refused before the run began
  EXPECT_TRUE(step_checkpoints(dir + "/run/checkpoints").empty());

  // A missing file is not replaced by minutes of training a Fashion-MNIST classifier that would not fit.
  const std::string missing = dir + "/missing.pt";
  out = train_rgb(data, dir + "/run_missing", "--eval_every 2 --eval_n 8 --classifier " + missing, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_EQ(error_line(out), "hamgan: error: train: classifier " + missing + " does not exist, and the Fashion-MNIST "
                                 "one trained in its place would take 1-channel images of 10 classes, but the model "
                                 "makes 3-channel images of 2 classes" + fix(data, "--classifier FILE"))
      << out;
  EXPECT_EQ(out.find("training it now"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(missing));
}

TEST(ClassifierFit, TheFirstEvaluationAndTheLogNameTheReferenceSplit) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::dir_for("classifier_fit_reference");
  const std::string data = rgb_two_classes(dir), fitting = classifier(dir + "/rgb2.pt", 3, 2);
  int status = 0;
  const std::string out = train_rgb(data, dir + "/run", "--eval_every 2 --eval_n 8 --classifier " + fitting, &status);
  ASSERT_EQ(status, 0) << out;
  // An image folder has one split: fid_classifier compares with the 12 training images.
  const std::string folder_reference = "12 real (" + data + ", training images: this data set has no test split)";
  const auto evaluations = test::lines_starting(out, "train: step 2:");
  ASSERT_EQ(evaluations.size(), 1u) << out;
  EXPECT_NE(evaluations[0].find("; fid_classifier against " + folder_reference), std::string::npos) << out;
  EXPECT_NE(test::file_contents(dir + "/run/metrics.jsonl").find(folder_reference + " vs 8 generated"),
            std::string::npos);

  if (!fs::exists(kDefaultFashionMnistDir)) GTEST_SKIP() << "Fashion-MNIST not installed";
  std::string idx_out;
  ASSERT_EQ(run_command(test::train_cmd(dir + "/idx_run", 2, "--eval_every 2 --eval_n 8 --classifier " +
                                                                 classifier(dir + "/fashion.pt", 1, 10)),
                        &idx_out),
            0)
      << idx_out;
  EXPECT_NE(test::file_contents(dir + "/idx_run/metrics.jsonl")
                .find("10000 real (" + std::string(kDefaultFashionMnistDir) + ", test split) vs 8 generated"),
            std::string::npos);
}

TEST(ClassifierFit, FidFidStatsAndClassConsistencyRefuseAClassifierOfOtherImages) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::dir_for("classifier_fit_commands");
  const std::string data = rgb_two_classes(dir), fashion = classifier(dir + "/fashion.pt", 1, 10);
  int status = 0;
  const std::string trained = train_rgb(data, dir + "/run", "", &status);
  ASSERT_EQ(status, 0) << trained;
  const std::string bin = std::string(test::hamgan_bin()) + " ";
  const std::string holds =
      " takes 1-channel images of 10 classes, but " + data + " holds 3-channel images of 2 classes";
  const std::string grey = "; or, if these are grey images stored as RGB files, read them as grey with --channels 1";
  std::string out;
  EXPECT_EQ(run_command(bin + "fid " + data + " " + data + " --features classifier:" + fashion +
                            " --n 0 --device cpu 2>&1",
                        &out),
            1);
  EXPECT_EQ(error_line(out), "hamgan: error: fid: classifier " + fashion + holds +
                                 fix(data, "--features classifier:FILE") + grey)
      << out;
  EXPECT_EQ(run_command(bin + "fid-stats " + data + " --features classifier:" + fashion + " --out " + dir +
                            "/s.npz --device cpu 2>&1",
                        &out),
            1);
  EXPECT_EQ(error_line(out), "hamgan: error: fid-stats: classifier " + fashion + holds +
                                 fix(data, "--features classifier:FILE") + grey)
      << out;
  EXPECT_FALSE(fs::exists(dir + "/s.npz"));
  const std::string checkpoint = dir + "/run/checkpoints/step_0000002.pt";
  EXPECT_EQ(run_command(bin + "class-consistency --checkpoint " + dir + "/run --classifier " + fashion +
                            " --n 10 --device cpu 2>&1",
                        &out),
            1);
  EXPECT_EQ(error_line(out), "hamgan: error: class-consistency: classifier " + fashion +
                                 " takes 1-channel images of 10 classes, but the generator " + checkpoint +
                                 " makes 3-channel images of 2 classes" + fix("DATA", "--classifier FILE"))
      << out;

  // A classifier of these images is accepted by each.
  const std::string rgb2 = classifier(dir + "/rgb2.pt", 3, 2);
  EXPECT_EQ(run_command(bin + "fid " + dir + "/run " + data + " --features classifier:" + rgb2 +
                            " --n 12 --standing_stats 1 --device cpu 2>&1",
                        &out),
            0)
      << out;
  EXPECT_EQ(run_command(bin + "class-consistency --checkpoint " + dir + "/run --classifier " + rgb2 +
                            " --n 10 --standing_stats 1 --device cpu 2>&1",
                        &out),
            0)
      << out;
}

}  // namespace
}  // namespace hamgan
