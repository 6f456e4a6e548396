#include "core/cuda_probe.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/util/Exception.h>
#include <torch/cuda.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hamgan {
namespace {

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ..." -> "580.65.06".
std::string kernel_driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "";
  const auto at = line.find("Module");
  std::istringstream words(at == std::string::npos ? line : line.substr(at + 6));
  std::string word;
  while (words >> word)
    if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos)
      return word;
  return "";
}

// CUDA_VISIBLE_DEVICES="" (or -1) hides every GPU on purpose: a CPU run is then what was asked for.
bool gpus_hidden_on_purpose() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!v) return false;
  const std::string s(v);
  return s.empty() || s.rfind("-1", 0) == 0 || s == "none" || s == "NoDevFiles";
}

bool nvidia_device_nodes() {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev", ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 6 && name.rfind("nvidia", 0) == 0 && std::isdigit(static_cast<unsigned char>(name[6])))
      return true;
  }
  return false;
}

// CUDA's own reason for having no device, which LibTorch reports as a warning the
// first time it counts devices (later counts are cached and say nothing).
class WarningCapture : public c10::WarningHandler {
 public:
  void process(const c10::Warning& warning) override {
    if (text.empty()) text = warning.msg();
  }
  std::string text;
};

CudaProbe probe() {
  CudaProbe p;
  try {
    p.cuda_release = at::detail::getCUDAHooks().versionCUDART();  // throws in a LibTorch without CUDA
    p.libtorch_cuda = p.cuda_release > 0;
  } catch (const c10::Error&) {
    p.libtorch_cuda = false;
  }
  WarningCapture capture;
  {
    c10::WarningUtils::WarningHandlerGuard guard(&capture);
    p.devices = p.libtorch_cuda ? static_cast<int64_t>(torch::cuda::device_count()) : 0;
  }
  p.start_error = capture.text.substr(0, capture.text.find('\n'));
  p.driver = kernel_driver_version();
  p.nvidia_gpus = !gpus_hidden_on_purpose() && (std::filesystem::exists("/proc/driver/nvidia") || nvidia_device_nodes());
  return p;
}

}  // namespace

const CudaProbe& cuda_probe() {
  static const CudaProbe p = probe();
  return p;
}

int64_t min_driver_for(int64_t cuda_release) {
  // NVIDIA's minor-version compatibility: the first driver branch of each CUDA major runs all its minors.
  if (cuda_release >= 14000) return 0;
  if (cuda_release >= 13000) return 580;
  if (cuda_release >= 12000) return 525;
  if (cuda_release >= 11000) return 450;
  return 0;
}

std::string cuda_release_name(int64_t cuda_release) {
  return std::to_string(cuda_release / 1000) + "." + std::to_string(cuda_release % 1000 / 10);
}

std::string cuda_start_failure(const CudaProbe& p) {
  std::string why = "NVIDIA GPUs are present";
  if (!p.driver.empty()) why += " (driver " + p.driver + ")";
  why += " but CUDA cannot start";
  const int64_t needed = min_driver_for(p.cuda_release);
  const int64_t branch = p.driver.empty() ? 0 : std::atoll(p.driver.c_str());
  if (!p.libtorch_cuda) {
    why += ": LibTorch was built without CUDA";
  } else if (needed > 0 && branch > 0 && branch < needed) {
    why += ": LibTorch is built for CUDA " + cuda_release_name(p.cuda_release) + ", which needs driver " +
           std::to_string(needed) + " or newer";
  } else if (!p.start_error.empty()) {
    why += ": " + p.start_error;
  }
  // A driver of CUDA 12's branch runs a torch built for CUDA 12, so that is a fix short of a driver update.
  const bool cuda12_fits = p.cuda_release >= 13000 && branch >= min_driver_for(12000) && branch < needed;
  return why + "; update the driver" +
         (cuda12_fits ? std::string(" or install torch for CUDA 12 (HAMGAN_TORCH_CUDA=cu126 scripts/install_deps.sh)")
                      : std::string()) +
         " (docs/building.md), or set device = \"cpu\" to run on the CPU on purpose";
}

}  // namespace hamgan
