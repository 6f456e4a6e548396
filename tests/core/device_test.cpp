// The one device parser (core/device.h) every command's --device goes through.
#include <gtest/gtest.h>

#include "core/device.h"
#include "core/errors.h"
#include "tests/common/cuda_test_util.h"

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
  REQUIRE_CUDA_OR_SKIP();
  const auto count = static_cast<int64_t>(torch::cuda::device_count());
  EXPECT_EQ(resolve_device("cuda"), torch::Device(torch::kCUDA, 0));
  EXPECT_EQ(resolve_device("cuda:0"), torch::Device(torch::kCUDA, 0));
  const torch::Device last = resolve_device("cuda:" + std::to_string(count - 1));
  EXPECT_EQ(last.index(), count - 1);
  EXPECT_EQ(resolve_device(device_name(last)), last);
  EXPECT_THROW(resolve_device("cuda:" + std::to_string(count)), ConfigError);
}


// A machine as cuda_probe() would see it, for the cases this one is not.
CudaProbe machine(int64_t devices, bool nvidia_gpus, const std::string& driver = "", int64_t cuda_release = 13000) {
  CudaProbe p;
  p.libtorch_cuda = true;
  p.devices = devices;
  p.nvidia_gpus = nvidia_gpus;
  p.driver = driver;
  p.cuda_release = cuda_release;
  return p;
}

std::string config_error(const std::string& name, const CudaProbe& probe) {
  try {
    resolve_device(name, probe);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ResolveDevice, AutoIsTheFirstGpuWhereCudaStarts) {
  EXPECT_EQ(resolve_device("auto", machine(8, true, "580.65.06")), torch::Device(torch::kCUDA, 0));
  EXPECT_EQ(resolve_device("cuda", machine(8, true)), torch::Device(torch::kCUDA, 0));
  EXPECT_EQ(resolve_device("cuda:7", machine(8, true)), torch::Device(torch::kCUDA, 7));
  EXPECT_NE(config_error("cuda:8", machine(8, true)).find("does not exist (8 CUDA devices)"), std::string::npos);
}

TEST(ResolveDevice, AutoIsTheCpuOnlyWithoutGpus) {
  EXPECT_EQ(resolve_device("auto", machine(0, false)), torch::Device(torch::kCPU));
  CudaProbe cpu_build = machine(0, true, "535.104.05");
  cpu_build.libtorch_cuda = false;  // a CPU torch installed on purpose (HAMGAN_TORCH_CUDA=cpu)
  EXPECT_EQ(resolve_device("auto", cpu_build), torch::Device(torch::kCPU));
}

TEST(ResolveDevice, AutoRefusesGpusWhereCudaCannotStart) {
  // A driver of CUDA 12's branch under a torch built for CUDA 13: the reason and both fixes.
  const std::string old_driver = config_error("auto", machine(0, true, "535.104.05", 13000));
  EXPECT_EQ(old_driver.rfind("device: auto: NVIDIA GPUs are present (driver 535.104.05) but CUDA cannot start: "
                             "LibTorch is built for CUDA 13.0, which needs driver 580 or newer; update the driver "
                             "or install torch for CUDA 12 (HAMGAN_TORCH_CUDA=cu126",
                             0),
            0u)
      << old_driver;
  EXPECT_NE(old_driver.find("device = \"cpu\""), std::string::npos) << old_driver;
  EXPECT_EQ(old_driver.find('\n'), std::string::npos) << old_driver;
  // Older than any CUDA 12 driver: only a driver update helps.
  const std::string ancient = config_error("auto", machine(0, true, "470.82.01", 13000));
  EXPECT_NE(ancient.find("needs driver 580 or newer; update the driver (docs/building.md)"), std::string::npos)
      << ancient;
  // A driver new enough, and CUDA's own words for what went wrong.
  CudaProbe broken = machine(0, true, "580.65.06", 13000);
  broken.start_error = "CUDA initialization: CUDA driver initialization failed";
  const std::string container = config_error("auto", broken);
  EXPECT_NE(container.find("cannot start: CUDA initialization: CUDA driver initialization failed; update"),
            std::string::npos)
      << container;
  // An explicit cuda names the same reason.
  EXPECT_NE(config_error("cuda", machine(0, true, "535.104.05")).find("needs driver 580"), std::string::npos);
}

TEST(CudaProbe, DriverBranchesOfCudaReleases) {
  EXPECT_EQ(min_driver_for(13000), 580);
  EXPECT_EQ(min_driver_for(12080), 525);
  EXPECT_EQ(min_driver_for(11080), 450);
  EXPECT_EQ(cuda_release_name(13000), "13.0");
  EXPECT_EQ(cuda_release_name(12080), "12.8");
}

TEST(CudaProbe, ThisMachine) {
  const CudaProbe& p = cuda_probe();
  EXPECT_EQ(p.devices, static_cast<int64_t>(torch::cuda::device_count()));
  // Where CUDA starts, auto is a GPU; where GPUs are present and it does not, auto is refused.
  if (p.devices > 0) {
    EXPECT_TRUE(resolve_device("auto").is_cuda());
  }
  if (p.devices == 0 && !(p.libtorch_cuda && p.nvidia_gpus)) {
    EXPECT_TRUE(resolve_device("auto").is_cpu());
  }
  if (p.devices == 0 && p.libtorch_cuda && p.nvidia_gpus) {
    EXPECT_THROW(resolve_device("auto"), ConfigError);
  }
}

}  // namespace
}  // namespace hamgan
