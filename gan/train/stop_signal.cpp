#include "gan/train/stop_signal.h"

#include <atomic>
#include <csignal>

namespace hamgan {
namespace {

std::atomic<bool> g_stop_requested{false};
struct sigaction g_old_int {}, g_old_term {};

extern "C" void on_stop_signal(int sig) {
  g_stop_requested.store(true);
  std::signal(sig, SIG_DFL);  // a second Ctrl-C ends the process at once
}

}  // namespace

StopSignalGuard::StopSignalGuard() {
  g_stop_requested.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

StopSignalGuard::~StopSignalGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

void request_training_stop() { g_stop_requested.store(true); }
bool training_stop_requested() { return g_stop_requested.load(); }

}  // namespace hamgan
