#include "core/distributed/local_launcher.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/errors.h"
#include "core/stop_signal.h"

namespace hamgan {
namespace fs = std::filesystem;
namespace {

// How a failed rank ended and where its own account is: a rank killed by a
// signal had no chance to print an error, and saying otherwise sends the user
// looking for one.
std::string describe_failure(int status) {
  if (WIFEXITED(status))
    return "exited with code " + std::to_string(WEXITSTATUS(status)) + " (its own error is printed above)";
  if (!WIFSIGNALED(status)) return "ended (status " + std::to_string(status) + ")";
  const int sig = WTERMSIG(status);
  const char* abbrev = sigabbrev_np(sig);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  if (sig == SIGKILL) name += ": the kernel's OOM killer (see dmesg), or kill -9";
  if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) name += ": a crash";
  return "was killed by signal " + std::to_string(sig) + " (" + name + ") and printed no error of its own";
}

// A private directory for the FileStore, removed when the job ends.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string templ = (fs::temp_directory_path() / "hamgan-dist-XXXXXX").string();
    if (!mkdtemp(templ.data()))
      throw Error("train --nproc: cannot create a temporary directory in " + fs::temp_directory_path().string() +
                  "; set TMPDIR to a writable directory");
    path = templ;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

pid_t start_rank(const std::vector<std::string>& args, int64_t rank, int64_t nproc, const std::string& store) {
  std::vector<std::string> argv_s{"hamgan"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  const pid_t launcher = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw Error("train --nproc: fork failed for rank " + std::to_string(rank));
  if (pid > 0) return pid;
  // A rank outliving a SIGKILLed launcher would keep training and hold the run's
  // lock: the kernel sends it SIGTERM (a stop, checkpoint first) when the launcher
  // dies; the setting survives exec. The launcher may have died before it was set.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != launcher) _exit(1);
  // The child: only async-signal-safe work between fork and exec matters in
  // theory; setenv is fine in practice because the parent has no other threads yet.
  const std::string r = std::to_string(rank), n = std::to_string(nproc);
  setenv("RANK", r.c_str(), 1);
  setenv("LOCAL_RANK", r.c_str(), 1);
  setenv("WORLD_SIZE", n.c_str(), 1);
  setenv("LOCAL_WORLD_SIZE", n.c_str(), 1);
  setenv("HAMGAN_DIST_INIT", ("file://" + store).c_str(), 1);
  setenv("HAMGAN_LAUNCHER", "hamgan train --nproc", 1);
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv("/proc/self/exe", argv.data());
  _exit(127);
}

}  // namespace

void run_local_workers(const std::vector<std::string>& args, int64_t nproc, std::chrono::seconds grace) {
  if (nproc < 1) throw ConfigError("nproc: must be >= 1");
  const ScratchDir scratch;
  const std::string store = (scratch.path / "store").string();
  std::vector<pid_t> pids;
  std::vector<bool> running;
  auto stop_all = [&](int sig) {
    for (size_t r = 0; r < pids.size(); ++r)
      if (running[r]) kill(pids[r], sig);
  };
  try {
    for (int64_t r = 0; r < nproc; ++r) {
      pids.push_back(start_rank(args, r, nproc, store));
      running.push_back(true);
    }
  } catch (...) {
    stop_all(SIGKILL);
    throw;
  }
  int64_t first_failed = -1;
  int first_status = 0;
  bool forwarded = false;
  std::chrono::steady_clock::time_point kill_at{};
  size_t left = pids.size();
  while (left > 0) {
    int status = 0;
    const pid_t done = waitpid(-1, &status, WNOHANG);
    if (done > 0) {
      for (size_t r = 0; r < pids.size(); ++r)
        if (pids[r] == done && running[r]) {
          running[r] = false;
          --left;
          // A rank that stopped on SIGUSR1 has checkpointed: the launcher exits for a requeue too.
          const bool requeue = WIFEXITED(status) && WEXITSTATUS(status) == kRequeueExitStatus;
          if (requeue) request_requeue();
          const bool ok = (WIFEXITED(status) && WEXITSTATUS(status) == 0) || requeue;
          if (!ok && first_failed < 0) {
            first_failed = static_cast<int64_t>(r);
            first_status = status;
            stop_all(SIGTERM);  // each rank checkpoints what it can and ends; the rest is killed after `grace`
            kill_at = std::chrono::steady_clock::now() + grace;
          }
        }
      continue;
    }
    if (stop_requested() && !forwarded) {
      // A terminal's Ctrl-C reached the workers already; a signal sent to the launcher alone did not.
      forwarded = true;
      if (stop_signal_number() != SIGINT) stop_all(requeue_requested() ? SIGUSR1 : SIGTERM);
    }
    if (first_failed >= 0 && std::chrono::steady_clock::now() > kill_at) stop_all(SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (first_failed >= 0) {
    if (forwarded && WIFEXITED(first_status) && WEXITSTATUS(first_status) == 130)
      throw Interrupted("train --nproc: the ranks stopped on request");
    throw Error("train --nproc: rank " + std::to_string(first_failed) + " of " + std::to_string(nproc) + " " +
                describe_failure(first_status) + "; the other ranks were stopped");
  }
}

}  // namespace hamgan
