#pragma once
// Helpers shared by the reliability tests that train: scratch directories, the
// `hamgan train` command of a tiny run, and the lines of its output.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "tests/common/process.h"
#include "tests/common/train_test_util.h"

namespace hamgan::test {

inline std::string dir_for(const std::string& name) { return scratch_dir("reliability", name); }

// Files under `dir` named like an atomic write's temporary (`<name>.tmp.<pid>`).
inline std::vector<std::string> temporaries_in(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) found.push_back(e.path().string());
  return found;
}

// The lines of `text` that start with `prefix`.
inline std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) found.push_back(line);
  return found;
}

// The one error line of a failed command ("" unless there is exactly one).
inline std::string error_line(const std::string& out) {
  const auto errors = lines_starting(out, "hamgan: error: ");
  return errors.size() == 1 ? errors[0] : "";
}

inline std::string train_cmd(const std::string& run_dir, int steps, const std::string& extra = "") {
  return std::string(hamgan_bin()) + " train --run_dir " + run_dir + " --steps " + std::to_string(steps) +
         tiny_cli_args() + " --tensorboard false --threads 1 " + extra + " 2>&1";
}

// A long tiny run into `dir`, sent `sig` once it has logged step 3, waited for:
// its wait status and its output.
struct SignalledRun {
  int status = 0;
  std::string out;
};
inline SignalledRun train_and_signal(const std::string& dir, int sig) {
  const std::string cmd = train_cmd(dir, 100000);
  const pid_t pid = spawn_shell(cmd.substr(0, cmd.rfind(" 2>&1")), dir + "/out.txt");
  for (int i = 0; i < 600 && file_contents(dir + "/metrics.jsonl").find("\"step\": 3") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(pid, sig);
  SignalledRun r;
  ::waitpid(pid, &r.status, 0);
  r.out = file_contents(dir + "/out.txt");
  return r;
}

// A process id that certainly no longer runs: a child that has exited and been reaped.
inline pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

}  // namespace hamgan::test
