#pragma once
// SIGINT and SIGTERM during training: the first asks the loop to checkpoint and
// stop after the current step; the handler then steps aside, so a second
// signal ends the process at once.
namespace hamgan {

// Installs the handlers for its lifetime and clears any earlier request.
class StopSignalGuard {
 public:
  StopSignalGuard();
  ~StopSignalGuard();
  StopSignalGuard(const StopSignalGuard&) = delete;
  StopSignalGuard& operator=(const StopSignalGuard&) = delete;
};

// Asks a running train() to checkpoint and stop after its current step (what
// the signals do); async-signal-safe.
void request_training_stop();
bool training_stop_requested();

}  // namespace hamgan
