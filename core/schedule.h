#pragma once
// When work that runs "every N steps" falls due: one rule for the log rows,
// checkpoints, sample grids and evaluations of a run, so that an interval of 0
// means the same thing everywhere.
#include <cstdint>

namespace hamgan {

// True at every multiple of `every` (every > 0), and whenever `last` is true.
// every <= 0 never falls due by interval: with `last` the work happens at the
// last step only, without it not at all. Callers pass `last` as "this is the
// last step and the work is wanted there" (an evaluation turned off passes false).
constexpr bool due(int64_t step, int64_t every, bool last) { return last || (every > 0 && step % every == 0); }

}  // namespace hamgan
