#include "core/rng.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <mutex>

namespace hamgan {

at::Generator device_generator(const torch::Device& device) {
  if (!device.is_cuda()) return {};
  const c10::DeviceIndex index = device.has_index() ? device.index() : 0;
  return at::globalContext().defaultGenerator(c10::Device(c10::kCUDA, index));
}

torch::Tensor generator_state(at::Generator& gen) {
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

void set_generator_state(at::Generator& gen, const torch::Tensor& state) {
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state.cpu());
}

RngState capture_rng_state() {
  RngState s;
  auto cpu = at::detail::getDefaultCPUGenerator();
  s.cpu = generator_state(cpu);
  if (torch::cuda::is_available()) {  // the current device: the one use_device made this rank's
    s.cuda_device = c10::impl::getDeviceGuardImpl(c10::kCUDA)->getDevice().index();
    auto gen = device_generator(c10::Device(c10::kCUDA, s.cuda_device));
    s.cuda = generator_state(gen);
  }
  return s;
}

void restore_rng_state(const RngState& s) {
  if (s.cpu.defined()) {
    auto cpu = at::detail::getDefaultCPUGenerator();
    set_generator_state(cpu, s.cpu);
  }
  if (s.cuda.defined()) {
    auto gen = device_generator(c10::Device(c10::kCUDA, s.cuda_device));
    set_generator_state(gen, s.cuda);
  }
}

at::Generator make_cpu_generator(uint64_t seed) { return at::detail::createCPUGenerator(seed); }

}  // namespace hamgan
