// A damaged evaluation input (an eval_reference with NaN or a non-covariance
// sigma, Inception weights holding NaN) ends the run at its start, naming the
// file, instead of failing at the first evaluation thousands of steps in.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "data/dataset.h"
#include "metrics/stats.h"
#include "tests/common/python_reference.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

TEST(EvalInputs, ADamagedReferenceOrInceptionEndsTheRunAtItsStartNamingTheFile) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  if (!fs::exists(kDefaultFashionMnistDir)) GTEST_SKIP() << "Fashion-MNIST not installed";
  std::string weights_dir;
  CACHED_REFERENCE("inception_reference.py", "inception", weights_dir);
  const std::string weights = weights_dir + "/weights.pth";
  const std::string dir = test::scratch_dir("train", "eval_inputs");
  const std::string ref = dir + "/ref.npz";
  int status = 0;
  std::string out = test::run_hamgan("fid-stats " + std::string(kDefaultFashionMnistDir) +
                                         " --split test --n 10 --size 32 --device cpu --inception " + weights +
                                         " --out " + ref,
                                     &status);
  ASSERT_EQ(status, 0) << out;
  const FeatureStats good = load_stats(ref);
  EXPECT_NO_THROW(check_reference_stats(good, ref));  // 10 samples in 2048-d: singular, still a covariance

  FeatureStats nan = good;
  nan.mu = good.mu.clone();
  nan.mu[5] = std::nan("");
  FeatureStats indefinite = good;
  indefinite.sigma = -good.sigma - torch::eye(good.sigma.size(0), good.sigma.options());
  save_stats(dir + "/nan.npz", nan);
  save_stats(dir + "/indefinite.npz", indefinite);
  // The same weights with one NaN, written by PyTorch itself.
  ASSERT_EQ(test::run_command(HAMGAN_PYTHON " -c \"import torch; d=torch.load('" + weights +
                                  "'); d['fc.weight'][0,0]=float('nan'); torch.save(d, '" + dir + "/nan_weights.pth')\"",
                              &out),
            0)
      << out;

  const std::string common =
      " --steps 2 --eval_every 1 --eval_metrics fid_inception" + test::tiny_cli_args();
  const std::pair<std::string, std::string> cases[] = {
      {" --inception " + weights + " --eval_reference " + dir + "/nan.npz", dir + "/nan.npz: mu or sigma holds NaN"},
      {" --inception " + weights + " --eval_reference " + dir + "/indefinite.npz",
       dir + "/indefinite.npz: sigma is not positive semi-definite"},
      {" --inception " + dir + "/nan_weights.pth --eval_reference " + ref,
       dir + "/nan_weights.pth: Inception weight 'fc.weight' holds NaN"}};
  int i = 0;
  for (const auto& [args, expected] : cases) {
    const std::string run = dir + "/run" + std::to_string(i++);
    out = test::run_hamgan("train --run_dir " + run + common + args, &status);
    EXPECT_EQ(status, 1) << out;
    EXPECT_NE(out.find("hamgan: error: "), std::string::npos) << out;
    EXPECT_NE(out.find(expected), std::string::npos) << out;
    EXPECT_FALSE(fs::exists(run + "/checkpoints/step_0000001.pt")) << out;  // stopped before the first step
  }
}

}  // namespace
}  // namespace hamgan
