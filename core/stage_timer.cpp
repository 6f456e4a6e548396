#include "core/stage_timer.h"

#include <c10/core/impl/VirtualGuardImpl.h>

namespace hamgan {

StageTimer::StageTimer(torch::Device device, size_t stages)
    : device_(device), seconds_(stages, 0.0), last_(std::chrono::steady_clock::now()) {
  if (device_.is_cuda()) mark(-1);
}

void StageTimer::mark(int stage) {
  if (!device_.is_cuda()) {
    const auto now = std::chrono::steady_clock::now();
    if (stage >= 0) seconds_.at(stage) += std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return;
  }
  // Timing events (BACKEND_DEFAULT); the default PYTORCH_DEFAULT flag disables timing.
  c10::Event event(device_.type(), c10::EventFlag::BACKEND_DEFAULT);
  event.record(c10::impl::VirtualGuardImpl(device_.type()).getStream(device_));
  events_.push_back(std::move(event));
  charged_to_.push_back(stage);
}

void StageTimer::restart() { mark(-1); }

void StageTimer::lap(size_t stage) {
  TORCH_CHECK(stage < seconds_.size(), "StageTimer::lap: stage ", stage, " of ", seconds_.size());
  mark(static_cast<int>(stage));
}

std::vector<double> StageTimer::seconds() {
  if (!device_.is_cuda()) return seconds_;
  std::vector<double> s = seconds_;
  if (events_.empty()) return s;
  events_.back().synchronize();
  for (size_t i = 1; i < events_.size(); ++i)
    if (charged_to_[i] >= 0) s[charged_to_[i]] += events_[i - 1].elapsedTime(events_[i]) / 1000.0;
  return s;
}

}  // namespace hamgan
