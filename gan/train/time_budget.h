#pragma once
// The wall-clock budget of one training process (`time_limit`): the run stops,
// checkpointed, while the time left still holds twice the longest step seen,
// hooks included (one more step, and the checkpoint the stop writes, which takes
// no longer than a step that wrote one). A step that evaluates is the longest,
// so a run that evaluates keeps that much in hand; the first step counts from
// the run's start, so its set-up (data, evaluator, warm-up) is kept in hand too. A scheduler's hard limit then
// finds the run already saved (docs/training.md, "Under a scheduler").
#include <chrono>
#include <cstdint>

namespace hamgan {

class TimeBudget {
 public:
  using Clock = std::chrono::steady_clock;
  // limit_seconds 0: no limit (never exhausted).
  explicit TimeBudget(int64_t limit_seconds = 0, Clock::time_point start = Clock::now())
      : limit_(limit_seconds), start_(start), last_(start) {}

  // The end of one loop iteration (a step and its hooks).
  void step_done(Clock::time_point now = Clock::now()) {
    if (now - last_ > longest_) longest_ = now - last_;
    last_ = now;
  }
  bool exhausted(Clock::time_point now = Clock::now()) const {
    return limit_ > 0 && now + 2 * longest_ >= start_ + std::chrono::seconds(limit_);
  }
  int64_t limit_seconds() const { return limit_; }

 private:
  int64_t limit_;
  Clock::time_point start_, last_;
  Clock::duration longest_{0};
};

}  // namespace hamgan
