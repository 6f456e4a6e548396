#pragma once
// Child processes for the tests that signal, kill or time a running command:
// start a shell command with its output in a log, wait for it with a limit.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace hamgan::test {

// Starts `cmd` through /bin/sh, exec'd so the returned pid is the command's own,
// with stdout and stderr in `log`. `own_group`: in a process group of its own,
// so that a signal from the test reaches it alone and kill(-pid, ...) reaches
// its children too. Prefix `env NAME=VALUE ...` to set variables.
inline pid_t spawn_shell(const std::string& cmd, const std::string& log, bool own_group = false) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (own_group) ::setpgid(0, 0);
    const std::string line = "exec " + cmd + " > " + log + " 2>&1";
    ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// Waits at most `limit` for `pid` to end. True with its wait status in
// `status`; false when it was still running, after SIGKILL to it (to its whole
// group with `group`) and reaping it.
inline bool wait_for_exit(pid_t pid, std::chrono::milliseconds limit, int* status = nullptr, bool group = false) {
  int st = 0;
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (::waitpid(pid, &st, WNOHANG) == pid) {
      if (status) *status = st;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(group ? -pid : pid, SIGKILL);
  ::waitpid(pid, &st, 0);
  return false;
}

}  // namespace hamgan::test
