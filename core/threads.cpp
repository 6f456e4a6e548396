#include "core/threads.h"

#include <sched.h>
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <thread>

#include "core/errors.h"
#include "core/vector_math.h"

namespace hamgan {

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return std::max(1u, std::thread::hardware_concurrency());
}

int apply_thread_count(int64_t requested) {
  if (requested < 0)
    throw ConfigError("threads: " + std::to_string(requested) + " is negative; use 0 (LibTorch's default) or a count");
  if (requested == 0) return torch::get_num_threads();
  const int cores = available_cores();
  int use = static_cast<int>(std::min<int64_t>(requested, cores));
  if (requested > cores)
    std::cerr << "hamgan: warning: threads = " << requested << " exceeds the " << cores
              << " cores available; using " << cores << "\n";
  torch::set_num_threads(use);
  warm_up_vector_math();  // the team may have grown: its new threads make their first calls here
  return use;
}

}  // namespace hamgan
