#pragma once
// The one parser of device names used by every command: "auto" (CUDA when
// present, else CPU), "cpu", "cuda" or "cuda:N".
#include <torch/torch.h>

#include <string>

#include "core/cuda_probe.h"

namespace hamgan {

// Throws ConfigError naming the value and the accepted spellings; a CUDA device
// that does not exist is refused here, not at the first tensor copy. "auto" is
// the CPU only where there is no NVIDIA GPU (or none is meant to be used): where
// GPUs are present but CUDA cannot start, it is refused with the reason.
torch::Device resolve_device(const std::string& name, const CudaProbe& probe);
torch::Device resolve_device(const std::string& name);  // with this process's cuda_probe()

// The canonical spelling of a device ("cpu", "cuda:0"), which resolve_device reads back.
std::string device_name(const torch::Device& device);

// Makes `device` the current CUDA device of this process (nothing for a CPU
// device): streams, synchronisations and NCCL's communicators then use the
// rank's own GPU, not GPU 0.
void use_device(const torch::Device& device);

// Waits for the work queued on `device` (nothing on a CPU device): timings end
// here. It names the device, so a rank never waits on another rank's GPU.
void synchronize(const torch::Device& device);

}  // namespace hamgan
