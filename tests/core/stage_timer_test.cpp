// StageTimer (core/stage_timer.h), the clock of `hamgan bench fid`: laps are
// charged to their stage, restarts to none, against the test's own clock.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/stage_timer.h"
#include "tests/common/cuda_test_util.h"

namespace hamgan {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

void check_laps(torch::Device device) {
  StageTimer timer(device, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  timer.restart();  // the 30 ms above are charged to nothing
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  timer.lap(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  timer.lap(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  timer.lap(1);  // a stage adds up over laps
  const auto t1 = Clock::now();
  const auto s = timer.seconds();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_GE(s[0], 0.019);
  EXPECT_GE(s[1], 0.019);
  EXPECT_LE(s[0] + s[1], seconds_between(t0, t1) + 1e-3);  // nothing from before the restart
}

TEST(StageTimer, ChargesLapsToTheirStageAndRestartsToNone) { check_laps(torch::kCPU); }

TEST(StageTimer, CudaEventsAgreeWithTheHostClock) {
  REQUIRE_CUDA_OR_SKIP();
  check_laps(torch::Device(torch::kCUDA, 0));
}

}  // namespace
}  // namespace hamgan
