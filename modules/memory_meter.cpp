// Peak tensor memory on CPU (a counting allocator) and CUDA (caching allocator stats).
#include "modules/memory_meter.h"

#include <ATen/DeviceAccelerator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

#include <algorithm>
#include <atomic>
#include <mutex>

namespace hamgan {
namespace {

// Wraps c10's aligned CPU allocation. The block size is kept in a 64-byte header in front of
// the data (64 keeps c10's alignment), so data pointer and context coincide and the raw
// allocate/deallocate interface keeps working.
class CountingCPUAllocator final : public c10::Allocator {
 public:
  static constexpr size_t kHeader = 64;

  c10::DataPtr allocate(size_t n) override {
    if (n == 0) return {nullptr, nullptr, &release, c10::Device(c10::kCPU)};
    auto* base = static_cast<char*>(c10::alloc_cpu(n + kHeader));
    *reinterpret_cast<size_t*>(base) = n;
    add(static_cast<int64_t>(n));
    void* data = base + kHeader;
    return {data, data, &release, c10::Device(c10::kCPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
  void copy_data(void* dest, const void* src, size_t count) const override { default_copy_data(dest, src, count); }

  static void release(void* data) {
    if (data == nullptr) return;
    char* base = static_cast<char*>(data) - kHeader;
    add(-static_cast<int64_t>(*reinterpret_cast<size_t*>(base)));
    c10::free_cpu(base);
  }
  static void add(int64_t delta) {
    const int64_t now = live.fetch_add(delta, std::memory_order_relaxed) + delta;
    int64_t old = peak.load(std::memory_order_relaxed);
    while (now > old && !peak.compare_exchange_weak(old, now, std::memory_order_relaxed)) {
    }
  }

  static inline std::atomic<int64_t> live{0};
  static inline std::atomic<int64_t> peak{0};
};

void install_counting_cpu_allocator() {
  static std::once_flag once;
  // Never uninstalled: tensors allocated through it must find their deleter for the process lifetime.
  std::call_once(once, [] {
    static CountingCPUAllocator allocator;
    c10::SetCPUAllocator(&allocator, /*priority=*/100);
  });
}

}  // namespace

PeakMemoryMeter::PeakMemoryMeter(const torch::Device& device) : device_(device) {
  if (device_.is_cpu()) {
    install_counting_cpu_allocator();
    baseline_ = CountingCPUAllocator::live.load();
    CountingCPUAllocator::peak.store(baseline_);
  } else if (device_.is_cuda()) {
    const auto index = device_.has_index() ? device_.index() : at::accelerator::getDeviceIndex();
    at::accelerator::synchronizeDevice(index);
    at::accelerator::resetPeakStats(index);
    baseline_ = at::accelerator::getDeviceStats(index).allocated_bytes[0].current;
  } else {
    TORCH_CHECK(false, "PeakMemoryMeter: unsupported device ", device_);
  }
}

int64_t PeakMemoryMeter::peak_bytes() const {
  if (device_.is_cpu()) return CountingCPUAllocator::peak.load() - baseline_;
  const auto index = device_.has_index() ? device_.index() : at::accelerator::getDeviceIndex();
  at::accelerator::synchronizeDevice(index);
  return at::accelerator::getDeviceStats(index).allocated_bytes[0].peak - baseline_;
}

int64_t PeakMemoryMeter::current_bytes() const {
  if (device_.is_cpu()) return CountingCPUAllocator::live.load() - baseline_;
  const auto index = device_.has_index() ? device_.index() : at::accelerator::getDeviceIndex();
  return at::accelerator::getDeviceStats(index).allocated_bytes[0].current - baseline_;
}

}  // namespace hamgan
