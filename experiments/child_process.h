#pragma once
// A training run of `hamgan compare` as a child process: its own address
// space, so its peak resident memory is the run's own.
#include <string>
#include <vector>

namespace hamgan {

struct ChildResult {
  int exit_code = -1;  // 128 + signal when a signal ended it
  double peak_rss_mb = 0, wall_s = 0;
};

// Runs `exe args...` with stdout appended to `log_path` and waits for it.
// ConfigError when it cannot start.
ChildResult run_child(const std::string& exe, const std::vector<std::string>& args, const std::string& log_path);

}  // namespace hamgan
