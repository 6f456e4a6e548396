// Data that does not fit the model or the run is refused at the start, in one
// line that says what differs (before: a tensor-size error at the first batch,
// "set num_classes = 5001" for one stray label, "invalid start position").
#include <gtest/gtest.h>

#include <filesystem>

#include "core/errors.h"
#include "data/hdf5_writer.h"
#include "gan/train/trainer.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

// An HDF5 data set of `labels.size()` grey side x side images.
std::string write_hdf5(const std::string& path, int64_t side, const std::vector<int64_t>& labels) {
  const int64_t n = static_cast<int64_t>(labels.size());
  const torch::Tensor imgs = torch::randint(0, 256, {n, 1, side, side}, torch::kUInt8);
  Hdf5Writer w(path, 1, side, side);
  w.append(imgs.data_ptr<uint8_t>(), labels.data(), n);
  w.finish(*std::max_element(labels.begin(), labels.end()) + 1);
  return path;
}

std::vector<int64_t> classes_0_to_9(int64_t n) {
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < n; ++i) labels.push_back(i % 10);
  return labels;
}

std::string error_of(const TrainConfig& c) {
  try {
    train(c);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DataMismatch, ImagesOfAnotherSizeAreRefusedAtTheStart) {
  const std::string dir = test::scratch_dir("reliability", "geometry");
  TrainConfig c = test::tiny_config(dir + "/run");
  c.dataset = write_hdf5(dir + "/30px.hdf5", 30, classes_0_to_9(20));
  const std::string msg = error_of(c);
  EXPECT_NE(msg.find("images are 30x30 but the model's resolution is 32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("hamgan prepare"), std::string::npos) << msg;
}

TEST(DataMismatch, AStrayLabelIsNamedNotTurnedIntoThousandsOfClasses) {
  const std::string dir = test::scratch_dir("reliability", "stray_label");
  TrainConfig c = test::tiny_config(dir + "/run");
  std::vector<int64_t> labels = classes_0_to_9(20);
  labels[13] = 5000;
  c.dataset = write_hdf5(dir + "/stray.hdf5", 32, labels);
  const std::string msg = error_of(c);
  EXPECT_NE(msg.find("1 example(s)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("labels up to 5000 (the first at index 13)"), std::string::npos) << msg;
}

TEST(DataMismatch, ResumingOnFewerExamplesSaysTheDataChanged) {
  const std::string dir = test::scratch_dir("reliability", "smaller_data");
  const std::string data = dir + "/data.hdf5";
  TrainConfig c = test::tiny_config(dir + "/run");
  c.dataset = write_hdf5(data, 32, classes_0_to_9(40));
  c.steps = 2;  // 8 of 40 examples consumed
  train(c);
  write_hdf5(data, 32, classes_0_to_9(4));  // the same path, fewer examples
  c.steps = 4;
  c.resume = ResumeMode::kYes;
  const std::string msg = error_of(c);
  EXPECT_NE(msg.find("lies outside the 4 examples"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the data changed since the run started"), std::string::npos) << msg;
}

// Before: config_changes.log recorded the forced seed change of this refused resume, config.toml
// took the refused config, and metrics.jsonl was rewritten.
TEST(DataMismatch, ARefusedResumeWritesNothingIntoTheRunDirectory) {
  const std::string dir = test::scratch_dir("reliability", "refused_resume_log");
  const std::string data = dir + "/data.hdf5";
  TrainConfig c = test::tiny_config(dir + "/run");
  c.dataset = write_hdf5(data, 32, classes_0_to_9(40));
  c.steps = 2;
  train(c);
  const std::string config = test::file_contents(dir + "/run/config.toml");
  const std::string metrics = test::file_contents(dir + "/run/metrics.jsonl");
  write_hdf5(data, 32, classes_0_to_9(4));
  c.steps = 4;
  c.seed = 5;
  c.allow_config_change = true;
  c.resume = ResumeMode::kYes;
  c.config_text = "# the refused run's config\n";
  EXPECT_NE(error_of(c).find("the data changed since the run started"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/run/config_changes.log"))
      << test::file_contents(dir + "/run/config_changes.log");
  EXPECT_EQ(test::file_contents(dir + "/run/config.toml"), config);
  EXPECT_EQ(test::file_contents(dir + "/run/metrics.jsonl"), metrics);
}

}  // namespace
}  // namespace hamgan
