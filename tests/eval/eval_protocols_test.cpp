// A `tf32` run that evaluates Inception FID, sFID and FD_DINOv2 under the random
// label protocol: every metrics.jsonl row is stamped with the labels and the
// extractor's arithmetic, and `hamgan fid` (which always runs in exact fp32) on
// the best checkpoint reproduces each logged number. Planted weights: pytorch-fid's
// Inception (tests/python/inception_reference.py) and a timm DINOv2 ViT
// (tests/python/dinov2_reference.py).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "data/dataset.h"
#include "gan/report/run_log.h"
#include "metrics/exact_arithmetic.h"
#include "tests/common/python_reference.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

using test::number_after;
using test::run_hamgan;

TEST(EvalProtocols, Tf32RunLogsWhatHamganFidReproducesForEveryMetric) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  if (!fs::exists(kDefaultFashionMnistDir)) GTEST_SKIP() << "Fashion-MNIST not installed";
  std::string inception_dir, dino_dir;
  CACHED_REFERENCE("inception_reference.py", "inception", inception_dir);
  CACHED_REFERENCE("dinov2_reference.py", "dinov2", dino_dir);
  const std::string inception = inception_dir + "/weights.pth", dino = dino_dir + "/dinov2.pt";
  const std::string dir = test::scratch_dir("eval", "protocols");
  const std::string real = std::string(kDefaultFashionMnistDir) + " --split test --n 24 --size 32 --device cpu";
  int status = 0;
  std::string out = run_hamgan("fid-stats " + real + " --inception " + inception + " --sfid --out " + dir +
                               "/ref.npz", &status);
  ASSERT_EQ(status, 0) << out;
  out = run_hamgan("fid-stats " + real + " --features dinov2:" + dino + " --out " + dir + "/ref_dino.npz", &status);
  ASSERT_EQ(status, 0) << out;

  std::ofstream(dir + "/eval.toml") << "eval_metrics = [\"fid_inception\", \"sfid\", \"dinov2\"]\neval_every = 2\n"
                                    << "eval_n = 20\neval_labels = \"random\"\nprecision = \"tf32\"\n"
                                    << "eval_reference = \"" << dir << "/ref.npz\"\ninception = \"" << inception << "\"\n"
                                    << "eval_reference_dinov2 = \"" << dir << "/ref_dino.npz\"\ndinov2 = \"" << dino << "\"\n";
  out = run_hamgan("train --config " + dir + "/eval.toml --run_dir " + dir + "/run --steps 2" +
                   test::tiny_cli_args(), &status);
  ASSERT_EQ(status, 0) << out;

  const std::string log = dir + "/run/metrics.jsonl";
  const auto rows = read_metrics(log);
  const auto texts = read_metric_texts(log);
  size_t row = rows.size();
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].count("fid_inception")) row = i;
  ASSERT_LT(row, rows.size()) << test::file_contents(log);
  ASSERT_TRUE(rows[row].count("sfid") && rows[row].count("dinov2")) << test::file_contents(log);
  EXPECT_EQ(texts[row].at("labels"), "random");
  const std::string& protocol = texts[row].at("protocol");
  for (const std::string& part : std::vector<std::string>{"fid_inception: inception sha256", "sfid: inception sha256",
                                                         "dinov2: dinov2 sha256",
                                                         "torch_bicubic, 32 px images, labels random, " +
                                                             std::string(kExactArithmetic)})
    EXPECT_NE(protocol.find(part), std::string::npos) << part << "\n" << protocol;

  // The checkpoint of step 2 holds the evaluated EMA weights; z and labels come from seed + 777.
  const std::string ckpt = dir + "/run/checkpoints/best.pt";
  const std::string same_samples = " --n 20 --seed 777 --labels random --device cpu";
  out = run_hamgan("fid " + ckpt + " " + dir + "/ref.npz --inception " + inception + " --sfid" + same_samples, &status);
  ASSERT_EQ(status, 0) << out;
  const double fid = rows[row].at("fid_inception"), sfid = rows[row].at("sfid"), fd = rows[row].at("dinov2");
  EXPECT_NEAR(number_after(out, "FID: "), fid, 1e-6 * fid) << out;
  EXPECT_NEAR(number_after(out, "sFID: "), sfid, 1e-6 * sfid) << out;
  EXPECT_NE(out.find("labels random"), std::string::npos) << out;
  out = run_hamgan("fid " + ckpt + " " + dir + "/ref_dino.npz --features dinov2:" + dino + same_samples, &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NEAR(number_after(out, "FD_DINOv2: "), fd, 1e-6 * fd) << out;
}

// sFID asks the reference for sFID statistics at the run's start, naming the command that makes them.
TEST(EvalProtocols, SfidWithoutSpatialReferenceStopsAtTheStart) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  if (!fs::exists(kDefaultFashionMnistDir)) GTEST_SKIP() << "Fashion-MNIST not installed";
  std::string inception_dir;
  CACHED_REFERENCE("inception_reference.py", "inception", inception_dir);
  const std::string inception = inception_dir + "/weights.pth";
  const std::string dir = test::scratch_dir("eval", "protocols_sfid");
  int status = 0;
  std::string out = run_hamgan("fid-stats " + std::string(kDefaultFashionMnistDir) + " --split test --n 8 --size 32 "
                               "--device cpu --inception " + inception + " --out " + dir + "/ref.npz", &status);
  ASSERT_EQ(status, 0) << out;
  out = run_hamgan("train --run_dir " + dir + "/run --steps 2 --eval_every 1 --eval_metrics sfid --inception " +
                       inception + " --eval_reference " + dir + "/ref.npz" + test::tiny_cli_args(),
                   &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("sfid needs sFID statistics (mu_s, sigma_s)"), std::string::npos) << out;
  EXPECT_NE(out.find("--sfid --out"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir + "/run/checkpoints/step_0000001.pt"));
}

}  // namespace
}  // namespace hamgan
