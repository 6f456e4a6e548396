// Evaluation on CUDA ($HAMGAN_TEST_DEVICE): `hamgan fid` of one checkpoint with
// random Inception weights (pytorch-fid's own model code,
// tests/python/inception_reference.py) on the GPU and on the CPU gives the same
// FID. Skipped without CUDA, failed instead with HAMGAN_REQUIRE_CUDA=1.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/dataset.h"
#include "tests/common/cuda_test_util.h"
#include "tests/common/python_reference.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

std::string hamgan_cmd(const std::string& args, int* status) {
  std::string out;
  *status = test::run_command(std::string(test::hamgan_bin()) + " " + args, &out);
  return out;
}

double fid_in(const std::string& out) {
  const auto at = out.find("FID: ");
  return at == std::string::npos ? -1 : std::stod(out.substr(at + 5));
}

TEST(CudaEvaluation, InceptionFidOnTheGpuEqualsTheCpus) {
  REQUIRE_CUDA_OR_SKIP();
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  if (!std::filesystem::exists(kDefaultFashionMnistDir)) GTEST_SKIP() << "Fashion-MNIST not installed";
  std::string weights_dir;
  CACHED_REFERENCE("inception_reference.py", "inception", weights_dir);
  const std::string weights = weights_dir + "/weights.pth";
  const std::string dir = test::scratch_dir("eval", "cuda_fid");
  int status = 0;
  std::string out = hamgan_cmd("train --run_dir " + dir + "/run --steps 2" + test::tiny_cli_args(), &status);
  ASSERT_EQ(status, 0) << out;
  const std::string ref = dir + "/ref.npz";
  out = hamgan_cmd("fid-stats " + std::string(kDefaultFashionMnistDir) + " --split test --n 40 --size 32 --inception " +
                       weights + " --device cpu --out " + ref,
                   &status);
  ASSERT_EQ(status, 0) << out;
  const std::string fid = "fid " + dir + "/run " + ref + " --n 20 --seed 777 --inception " + weights + " --device ";
  const std::string on_cpu = hamgan_cmd(fid + "cpu", &status);
  ASSERT_EQ(status, 0) << on_cpu;
  const std::string on_gpu = hamgan_cmd(fid + test::cuda_test_device(), &status);
  ASSERT_EQ(status, 0) << on_gpu;
  EXPECT_GT(fid_in(on_cpu), 0) << on_cpu;
  EXPECT_NEAR(fid_in(on_gpu), fid_in(on_cpu), 1e-2 * fid_in(on_cpu)) << on_gpu << on_cpu;
}

}  // namespace
}  // namespace hamgan
