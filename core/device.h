#pragma once
// The one parser of device names used by every command: "auto" (CUDA when
// present, else CPU), "cpu", "cuda" or "cuda:N".
#include <torch/torch.h>

#include <string>

namespace hamgan {

// Throws ConfigError naming the value and the accepted spellings; a CUDA device
// that does not exist is refused here, not at the first tensor copy.
torch::Device resolve_device(const std::string& name);

// The canonical spelling of a device ("cpu", "cuda:0"), which resolve_device reads back.
std::string device_name(const torch::Device& device);

}  // namespace hamgan
