// The one device parser (core/device.h) every command's --device goes through.
#include <gtest/gtest.h>

#include "core/device.h"
#include "core/errors.h"

namespace hamgan {
namespace {

TEST(ResolveDevice, CpuAndAuto) {
  EXPECT_EQ(resolve_device("cpu"), torch::Device(torch::kCPU));
  const torch::Device a = resolve_device("auto");
  if (torch::cuda::is_available())
    EXPECT_EQ(a, torch::Device(torch::kCUDA, 0));
  else
    EXPECT_EQ(a, torch::Device(torch::kCPU));
  EXPECT_EQ(resolve_device(device_name(a)), a);
}

TEST(ResolveDevice, BadNamesAreConfigErrors) {
  for (const char* name : {"", "gpu", "CUDA", "cuda:", "cuda:x", "cuda0", "mps"})
    EXPECT_THROW(resolve_device(name), ConfigError) << "'" << name << "'";
  try {
    resolve_device("gpu");
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'gpu'"), std::string::npos) << e.what();
  }
}

TEST(ResolveDevice, CudaWithoutCudaIsRefused) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "CUDA is present";
  for (const char* name : {"cuda", "cuda:0", "cuda:1"}) {
    try {
      resolve_device(name);
      ADD_FAILURE() << name << " resolved without CUDA";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA is not available"), std::string::npos) << e.what();
    }
  }
}

TEST(ResolveDevice, CudaNamesWithCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const auto count = static_cast<int64_t>(torch::cuda::device_count());
  EXPECT_EQ(resolve_device("cuda"), torch::Device(torch::kCUDA, 0));
  EXPECT_EQ(resolve_device("cuda:0"), torch::Device(torch::kCUDA, 0));
  const torch::Device last = resolve_device("cuda:" + std::to_string(count - 1));
  EXPECT_EQ(last.index(), count - 1);
  EXPECT_EQ(resolve_device(device_name(last)), last);
  EXPECT_THROW(resolve_device("cuda:" + std::to_string(count)), ConfigError);
}

}  // namespace
}  // namespace hamgan
