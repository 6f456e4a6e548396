#pragma once
// Time per stage of a loop on one device (sampling, features, ... per batch).
// Waiting for a GPU after every stage would serialise host and device, so on
// CUDA the stage boundaries are timing events recorded on the current stream
// and read once, at the end; on the CPU they are steady-clock reads.
#include <torch/torch.h>

#include <c10/core/Event.h>

#include <chrono>
#include <vector>

namespace hamgan {

class StageTimer {
 public:
  StageTimer(torch::Device device, size_t stages);
  // Starts a new interval without charging the time since the last boundary
  // (loop overhead, progress output).
  void restart();
  // Charges the time since the last boundary to `stage` and starts a new interval.
  void lap(size_t stage);
  // Seconds charged to each stage so far; on CUDA this waits for the device once.
  std::vector<double> seconds();

 private:
  void mark(int stage);  // stage -1: not charged

  torch::Device device_;
  std::vector<double> seconds_;
  std::chrono::steady_clock::time_point last_;
  // CUDA: every boundary in order, and the stage the interval ending there belongs to.
  std::vector<c10::Event> events_;
  std::vector<int> charged_to_;
};

}  // namespace hamgan
