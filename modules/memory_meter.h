#pragma once
// Peak tensor memory of a region of code, for `hamgan bench modules`.
//
// CPU: LibTorch has no CPU allocator statistics (ProfiledCPUMemoryReporter only
// forwards events to an active profiler), so the first CPU meter installs a
// counting wrapper around c10's default CPU allocator (c10::SetCPUAllocator):
// every tensor allocation adds its size to a live-bytes counter, every free
// subtracts it, and a high-water mark is kept. Library-internal scratch that
// bypasses c10's allocator (e.g. oneDNN/BLAS workspaces) is not counted.
// CUDA: the caching allocator's own statistics (allocated_bytes current/peak,
// via at::accelerator), i.e. bytes held by live tensors, not the cache.
// Both report the peak above the level at the meter's construction.
#include <torch/torch.h>

#include <cstdint>

namespace hamgan {

class PeakMemoryMeter {
 public:
  // Resets the high-water mark to the current live bytes on `device` (CPU or CUDA).
  explicit PeakMemoryMeter(const torch::Device& device);
  // Peak live tensor bytes since construction, minus the live bytes at construction.
  int64_t peak_bytes() const;
  // Live tensor bytes now, minus the live bytes at construction.
  int64_t current_bytes() const;

 private:
  torch::Device device_;
  int64_t baseline_ = 0;
};

}  // namespace hamgan
