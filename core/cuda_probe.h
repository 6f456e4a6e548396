#pragma once
// What this process can tell about CUDA before choosing a device: whether
// LibTorch was built with it, how many devices it can use, and, when it can use
// none, whether NVIDIA GPUs are there all the same (a driver older than
// LibTorch's CUDA release, a broken container). device = "auto" must not turn
// such a machine into a CPU run without a word (docs/training.md, "Devices").
#include <cstdint>
#include <string>

namespace hamgan {

struct CudaProbe {
  bool libtorch_cuda = false;  // LibTorch's CUDA library is loaded (a CUDA wheel or LibTorch)
  int64_t devices = 0;         // devices CUDA can use (0 when it cannot start)
  bool nvidia_gpus = false;    // NVIDIA's kernel driver is loaded and GPUs are not hidden on purpose
  std::string driver;          // the kernel driver's version ("" when unknown)
  int64_t cuda_release = 0;    // the CUDA runtime LibTorch was built with, as 13000 for 13.0 (0: none)
  std::string start_error;     // what CUDA said when it could not start ("" when it said nothing)
};

// This process's CUDA, probed once and remembered (CUDA's own answers do not change in a process).
const CudaProbe& cuda_probe();

// The lowest NVIDIA driver branch that runs a CUDA release (12000 -> 525, 13000 -> 580); 0 when unknown.
int64_t min_driver_for(int64_t cuda_release);

// "13.0" for 13000.
std::string cuda_release_name(int64_t cuda_release);

// Why CUDA cannot start on a machine with NVIDIA GPUs, and the fixes: one sentence
// naming the driver against LibTorch's CUDA release where both are known.
std::string cuda_start_failure(const CudaProbe& probe);

}  // namespace hamgan
