#include "core/rng.h"

#include <ATen/CPUGeneratorImpl.h>

#include <mutex>

namespace hamgan {
namespace {

int64_t cuda_devices() { return torch::cuda::is_available() ? static_cast<int64_t>(torch::cuda::device_count()) : 0; }

}  // namespace

RngState capture_rng_state() {
  RngState s;
  auto cpu = at::detail::getDefaultCPUGenerator();
  {
    std::lock_guard<std::mutex> lock(cpu.mutex());
    s.cpu = cpu.get_state();
  }
  for (int64_t i = 0; i < cuda_devices(); ++i) {
    auto gen = at::globalContext().defaultGenerator(c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(i)));
    std::lock_guard<std::mutex> lock(gen.mutex());
    s.cuda.push_back(gen.get_state());
  }
  return s;
}

void restore_rng_state(const RngState& s) {
  if (s.cpu.defined()) {
    auto cpu = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(cpu.mutex());
    cpu.set_state(s.cpu.cpu());
  }
  const int64_t n = std::min<int64_t>(static_cast<int64_t>(s.cuda.size()), cuda_devices());
  for (int64_t i = 0; i < n; ++i) {
    auto gen = at::globalContext().defaultGenerator(c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(i)));
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(s.cuda[static_cast<size_t>(i)].cpu());
  }
}

at::Generator make_cpu_generator(uint64_t seed) { return at::detail::createCPUGenerator(seed); }

}  // namespace hamgan
