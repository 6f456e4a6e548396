#include "core/device.h"

#include "core/errors.h"

namespace hamgan {

torch::Device resolve_device(const std::string& name) {
  if (name == "auto") return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  torch::Device d(torch::kCPU);
  try {
    d = torch::Device(name);
  } catch (const c10::Error&) {
    throw ConfigError("device: '" + name + "' is not a device; use auto, cpu, cuda or cuda:N");
  }
  if (!d.is_cpu() && !d.is_cuda()) throw ConfigError("device: '" + name + "' unsupported; use auto, cpu or cuda");
  if (d.is_cuda()) {
    if (!torch::cuda::is_available())
      throw ConfigError("device: '" + name + "' requested but CUDA is not available; use cpu or auto");
    const int64_t count = static_cast<int64_t>(torch::cuda::device_count());
    if (d.has_index() && d.index() >= count)
      throw ConfigError("device: '" + name + "' does not exist (" + std::to_string(count) + " CUDA devices)");
    if (!d.has_index()) d = torch::Device(torch::kCUDA, 0);
  }
  return d;
}

std::string device_name(const torch::Device& device) { return device.str(); }

}  // namespace hamgan
