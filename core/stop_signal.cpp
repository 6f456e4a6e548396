#include "core/stop_signal.h"

#include <atomic>
#include <csignal>

namespace hamgan {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kSignalsBeforeAbort = 3;

std::atomic<bool> g_stop_requested{false};
std::atomic<int> g_signal_count{0};
std::atomic<int> g_signal_number{0};
struct sigaction g_old[3] {};

extern "C" void on_stop_signal(int sig) {
  g_signal_number.store(sig);
  g_stop_requested.store(true);
  if (g_signal_count.fetch_add(1) + 1 >= kSignalsBeforeAbort - 1) std::signal(sig, SIG_DFL);
}

}  // namespace

StopSignalGuard::StopSignalGuard() {
  g_stop_requested.store(false);
  g_signal_count.store(0);
  g_signal_number.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &g_old[i]);
}

StopSignalGuard::~StopSignalGuard() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &g_old[i], nullptr);
}

void request_stop() { g_stop_requested.store(true); }
bool stop_requested() { return g_stop_requested.load(); }
int stop_signal_number() { return g_signal_number.load(); }

void throw_if_stop_requested(const std::string& phase) {
  if (stop_requested()) throw Interrupted(phase + ": stopped by request");
}

}  // namespace hamgan
