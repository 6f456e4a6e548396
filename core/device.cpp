#include "core/device.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "core/errors.h"

namespace hamgan {

torch::Device resolve_device(const std::string& name, const CudaProbe& probe) {
  if (name == "auto") {
    if (probe.devices > 0) return torch::Device(torch::kCUDA, 0);
    if (probe.libtorch_cuda && probe.nvidia_gpus) throw ConfigError("device: auto: " + cuda_start_failure(probe));
    return torch::Device(torch::kCPU);
  }
  torch::Device d(torch::kCPU);
  try {
    d = torch::Device(name);
  } catch (const c10::Error&) {
    throw ConfigError("device: '" + name + "' is not a device; use auto, cpu, cuda or cuda:N");
  }
  if (!d.is_cpu() && !d.is_cuda()) throw ConfigError("device: '" + name + "' unsupported; use auto, cpu or cuda");
  if (d.is_cuda()) {
    if (probe.devices == 0)
      throw ConfigError("device: '" + name + "' requested but CUDA is not available" +
                        (probe.nvidia_gpus ? " (" + cuda_start_failure(probe) + ")" : "; use cpu or auto"));
    if (d.has_index() && d.index() >= probe.devices)
      throw ConfigError("device: '" + name + "' does not exist (" + std::to_string(probe.devices) + " CUDA devices)");
    if (!d.has_index()) d = torch::Device(torch::kCUDA, 0);
  }
  return d;
}

torch::Device resolve_device(const std::string& name) { return resolve_device(name, cuda_probe()); }

std::string device_name(const torch::Device& device) { return device.str(); }

void use_device(const torch::Device& device) {
  if (device.is_cuda()) c10::impl::getDeviceGuardImpl(device.type())->setDevice(device);
}

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

}  // namespace hamgan
