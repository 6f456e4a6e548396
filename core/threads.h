#pragma once
// LibTorch's CPU thread count from a --threads option. More threads than cores
// only oversubscribes the machine (256 drove the load average to 188; 100000
// stalled before the first step), so a larger request is capped with a warning.
#include <cstdint>

namespace hamgan {

// Cores this process may run on (its CPU affinity mask, else the hardware count).
int available_cores();

// 0 keeps LibTorch's default; N > 0 sets min(N, available_cores()), warning on
// stderr when capped; N < 0 is a ConfigError. Returns the count in effect.
int apply_thread_count(int64_t requested);

}  // namespace hamgan
