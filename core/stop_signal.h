#pragma once
// SIGINT, SIGTERM, SIGHUP (a closed terminal or dropped SSH session) and SIGUSR1
// (SLURM's --signal=USR1@SECONDS before a job's time limit) ask the running
// command to stop at the next safe point: training checkpoints first. After
// SIGUSR1 the command exits with kRequeueExitStatus, so a batch script can tell
// "stopped to be requeued" from "finished" and from a failure.
// Long phases (sampling, evaluation, classifier training) poll stop_requested()
// and throw Interrupted, so a stop is honoured within seconds in every phase.
// Further signals are counted but do not kill the process while the promised
// checkpoint is written; the third one restores the default action (abort now).
#include <atomic>
#include <string>

#include "core/errors.h"

namespace hamgan {

struct Interrupted : Error {  // a stop signal arrived during a long phase
  using Error::Error;
};

// The outermost guard installs the handlers for its lifetime and clears any
// request before and after it; a nested one changes nothing, so a stop that
// arrived while a command prepared its work (main() holds a guard from process
// start) is kept.
class StopSignalGuard {
 public:
  StopSignalGuard();
  ~StopSignalGuard();
  StopSignalGuard(const StopSignalGuard&) = delete;
  StopSignalGuard& operator=(const StopSignalGuard&) = delete;
};

// EX_TEMPFAIL of sysexits.h: "try again later".
constexpr int kRequeueExitStatus = 75;

// What the signals do; async-signal-safe.
void request_stop();
bool stop_requested();
// The flag the signals set (no StopDeferral holds it back), for code that waits
// on an atomic flag: prepare's decode pipeline.
const std::atomic<bool>& stop_flag();
// For a command whose work is complete when a late request arrives: it then
// exits as finished (0), not as stopped (130, or 75 after SIGUSR1).
void forget_stop_request();
// The signal that asked (SIGINT, SIGTERM, SIGHUP, SIGUSR1), or 0 for request_stop().
int stop_signal_number();
// A SIGUSR1 arrived (or request_requeue(): a rank of this launcher exited for one).
bool requeue_requested();
void request_requeue();

// Throws Interrupted naming the phase when a stop was requested.
void throw_if_stop_requested(const std::string& phase);

// While alive, the first stop request (however early it came) is held back:
// stop_requested() is false, so work owed before exiting (a run's last-step
// evaluation and grid, after its checkpoint) completes. A second request ends
// the hold (and a third signal still kills), so a user can always get out.
class StopDeferral {
 public:
  StopDeferral();
  ~StopDeferral();
  StopDeferral(const StopDeferral&) = delete;
  StopDeferral& operator=(const StopDeferral&) = delete;
};

}  // namespace hamgan
