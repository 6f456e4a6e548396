// Evaluation during training with the FID Inception: metrics.jsonl rows with
// their protocol, checkpoints/best.pt, `sample --which best`, and `hamgan fid`
// reproducing the logged number from best.pt (random Inception weights made by
// pytorch-fid's own model code, tests/python/inception_reference.py).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "data/dataset.h"
#include "gan/checkpoint/archive.h"
#include "gan/report/run_log.h"
#include "tests/common/python_reference.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;
using test::run_hamgan;

class TrainEvaluation : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
    if (!fs::exists(kDefaultFashionMnistDir)) GTEST_SKIP() << "Fashion-MNIST not installed";
    CACHED_REFERENCE("inception_reference.py", "inception", weights_dir_);
    weights_ = weights_dir_ + "/weights.pth";
  }
  // Inception statistics of `n` real test images at `size` px.
  std::string reference(const std::string& dir, int64_t size, int64_t n) {
    const std::string out = dir + "/ref" + std::to_string(size) + ".npz";
    int status = 0;
    const std::string text = run_hamgan("fid-stats " + std::string(kDefaultFashionMnistDir) + " --split test --n " +
                                        std::to_string(n) + " --size " + std::to_string(size) + " --inception " +
                                        weights_ + " --device cpu --out " + out,
                                        &status);
    EXPECT_EQ(status, 0) << text;
    return out;
  }
  std::string weights_dir_, weights_;
};

using test::number_after;

TEST_F(TrainEvaluation, InceptionFidKeepsTheBestCheckpointAndHamganFidReproducesIt) {
  const std::string dir = test::scratch_dir("train", "eval_inception");
  const std::string ref = reference(dir, 32, 24);
  // eval_metrics as a TOML array in a config file, the way experiment files give it.
  std::ofstream(dir + "/eval.toml") << "eval_metrics = [\"fid_inception\", \"is\"]\neval_every = 2\neval_n = 20\n"
                                    << "eval_final_n = 30\n"
                                    << "eval_reference = \"" << ref << "\"\ninception = \"" << weights_ << "\"\n";
  int status = 0;
  std::string out = run_hamgan("train --config " + dir + "/eval.toml --run_dir " + dir + "/run --steps 4" +
                               test::tiny_cli_args(),
                               &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(test::file_contents(dir + "/run/config.toml").find("eval_metrics = [\"fid_inception\", \"is\"]\n"),
            std::string::npos);

  // Every line is JSON to Python; the evaluation rows carry numbers and the protocol.
  const std::string log = dir + "/run/metrics.jsonl";
  ASSERT_EQ(test::run_command(HAMGAN_PYTHON " -c \"import json,sys; rows=[json.loads(l) for l in open('" + log +
                                  "')]; ev=[r for r in rows if 'fid_inception' in r]; print(len(ev)); "
                                  "print(ev[0]['protocol']); print(ev[-1]['protocol'])\"",
                              &out),
            0)
      << out;
  EXPECT_EQ(out.substr(0, 2), "2\n") << out;  // steps 2 and 4
  std::string sha;
  ASSERT_EQ(test::run_command("sha256sum " + weights_ + " | cut -c1-12", &sha), 0);
  EXPECT_NE(out.find("fid_inception: inception sha256 " + sha.substr(0, 12)), std::string::npos) << out;
  EXPECT_NE(out.find("legacy_tensorflow, 32 px images, labels balanced, fp32, TF32 off, deterministic cuDNN, 24 real (" +
                     ref + ") vs 20 generated"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("is: inception sha256"), std::string::npos) << out;
  // The last step's evaluation has eval_final_n samples, and so does not compete for best.pt.
  EXPECT_NE(out.find("vs 30 generated; is:"), std::string::npos) << out;

  double best = std::numeric_limits<double>::infinity();
  int64_t best_step = -1;
  for (const auto& row : read_metrics(log)) {
    if (!row.count("fid_inception") || row.at("step") == 4) continue;  // step 4: the final, larger evaluation
    // exp(H(marginal) − mean H(p)) per split: between 1 and the split's 20 / 10 = 2 images.
    EXPECT_GE(row.at("is"), 1.0 - 1e-9);
    EXPECT_LE(row.at("is"), 2.0 + 1e-9);
    if (row.at("fid_inception") < best) best = row.at("fid_inception"), best_step = static_cast<int64_t>(row.at("step"));
  }
  ASSERT_GT(best_step, 0);
  const std::string best_pt = dir + "/run/checkpoints/best.pt";
  ASSERT_TRUE(checkpoint_is_complete(best_pt));
  CheckpointReader r(best_pt);
  EXPECT_EQ(r.get_string("best_metric"), "fid_inception");
  EXPECT_EQ(r.get_int("best_step"), best_step);
  EXPECT_NEAR(r.get_double("best_value"), best, 1e-7 * best);  // the log keeps 9 digits

  // The same samples through `hamgan fid`: evaluation draws z with seed + 777 and
  // the standing BN statistics as `hamgan fid` does for a checkpoint.
  out = run_hamgan("fid " + best_pt + " " + ref + " --n 20 --seed 777 --inception " + weights_ +
                   " --device cpu", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NEAR(number_after(out, "FID: "), best, 1e-6 * best) << out;

  out = run_hamgan("sample --checkpoint " + dir + "/run --which best --n 4 --device cpu --quiet --out " + dir +
                       "/b.npz",
                   &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find(best_pt), std::string::npos) << out;

  // TensorBoard's own reader finds the protocol in the Text tab.
  std::string event_file;
  for (const auto& e : fs::directory_iterator(dir + "/run"))
    if (e.path().filename().string().rfind("events.out.tfevents.", 0) == 0) event_file = e.path().string();
  ASSERT_EQ(test::run_command(HAMGAN_PYTHON " " + test::python_script("read_tfevents.py") + " " + event_file, &out), 0) << out;
  EXPECT_NE(out.find("text 4 eval/protocol text 'fid_inception: inception sha256 " + sha.substr(0, 12)),
            std::string::npos)
      << out;
}

TEST_F(TrainEvaluation, AReferenceOfAnotherProtocolEndsTheRunAtItsStart) {
  const std::string dir = test::scratch_dir("train", "eval_protocol");
  const std::string ref28 = reference(dir, 28, 10);
  const std::string common = " --run_dir " + dir + "/run --steps 2 --eval_every 1 --eval_metrics fid_inception"
                             " --inception " + weights_ + test::tiny_cli_args();
  int status = 0;
  std::string out = run_hamgan("train" + common + " --eval_reference " + ref28, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("hamgan: error: train: eval_reference " + ref28 + " was made under another protocol"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("image_size"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir + "/run/checkpoints/step_0000001.pt"));

  out = run_hamgan("train" + common, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("fid_inception needs eval_reference"), std::string::npos) << out;

  // A run that never evaluated has no best checkpoint to sample from.
  out = run_hamgan("train --run_dir " + dir + "/plain --steps 2" + test::tiny_cli_args(), &status);
  ASSERT_EQ(status, 0) << out;
  out = run_hamgan("sample --checkpoint " + dir + "/plain --which best --n 4 --out " + dir + "/x.npz", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("no best checkpoint"), std::string::npos) << out;
}

}  // namespace
}  // namespace hamgan
