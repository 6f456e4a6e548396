// core/schedule.h: due(step, every, last), the one "every N steps, and at the
// last step" rule of the run's intervals, against cases written out by hand and
// against multiples counted one by one.
#include <gtest/gtest.h>

#include "core/schedule.h"

namespace hamgan {
namespace {

struct Case {
  int64_t step, every;
  bool last, expected;
};

TEST(Schedule, DueFollowsTheTableOfCases) {
  const Case cases[] = {
      // an interval: its multiples, and the last step whatever it is
      {10, 5, false, true}, {11, 5, false, false}, {11, 5, true, true}, {1, 1, false, true},
      {7, 10, false, false}, {1000, 1000, false, true}, {999, 1000, false, false}, {999, 1000, true, true},
      {5, 10, true, true}, {20, 10, true, true}, {0, 3, false, true},
      // 0: never by interval, so the last step only, and only when the caller asks
      {10, 0, false, false}, {10, 0, true, true},
      // negatives as 0
      {10, -5, false, false}, {10, -5, true, true}, {10, -1, false, false},
  };
  for (const Case& c : cases)
    EXPECT_EQ(due(c.step, c.every, c.last), c.expected)
        << "step " << c.step << ", every " << c.every << ", last " << c.last;
}

TEST(Schedule, DueAtExactlyTheMultiplesCountedOneByOne) {
  for (int64_t every = -3; every <= 7; ++every)
    for (int64_t step = 0; step <= 40; ++step) {
      bool multiple = false;
      for (int64_t k = 0; every > 0 && k * every <= step; ++k) multiple = multiple || k * every == step;
      EXPECT_EQ(due(step, every, false), multiple) << "step " << step << ", every " << every;
      EXPECT_TRUE(due(step, every, true)) << "step " << step << ", every " << every;
    }
}

static_assert(due(4, 2, false) && !due(3, 2, false) && due(3, 0, true), "usable in constant expressions");

}  // namespace
}  // namespace hamgan
