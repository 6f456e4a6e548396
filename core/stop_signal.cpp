#include "core/stop_signal.h"

#include <atomic>
#include <csignal>

namespace hamgan {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1};
constexpr int kSignalCount = sizeof(kSignals) / sizeof(kSignals[0]);
constexpr int kSignalsBeforeAbort = 3;

std::atomic<bool> g_stop_requested{false};
std::atomic<int> g_signal_count{0};
std::atomic<int> g_signal_number{0};
std::atomic<bool> g_requeue{false};
std::atomic<int> g_requests{0};   // signals and request_stop() calls, for StopDeferral
std::atomic<int> g_deferrals{0};  // StopDeferral scopes alive
std::atomic<int> g_guards{0};  // guards alive: only the outermost installs and clears
struct sigaction g_old[kSignalCount] {};

extern "C" void on_stop_signal(int sig) {
  g_requests.fetch_add(1);
  g_signal_number.store(sig);
  if (sig == SIGUSR1) g_requeue.store(true);
  g_stop_requested.store(true);
  if (g_signal_count.fetch_add(1) + 1 >= kSignalsBeforeAbort - 1) std::signal(sig, SIG_DFL);
}

}  // namespace

StopSignalGuard::StopSignalGuard() {
  if (g_guards.fetch_add(1) > 0) return;
  g_stop_requested.store(false);
  g_signal_count.store(0);
  g_requests.store(0);
  g_signal_number.store(0);
  g_requeue.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < kSignalCount; ++i) sigaction(kSignals[i], &sa, &g_old[i]);
}

StopSignalGuard::~StopSignalGuard() {
  if (g_guards.fetch_sub(1) != 1) return;
  for (int i = 0; i < kSignalCount; ++i) sigaction(kSignals[i], &g_old[i], nullptr);
  forget_stop_request();  // a request belongs to the guard that caught it: none outlives it
}

void request_stop() {
  g_requests.fetch_add(1);
  g_stop_requested.store(true);
}
bool stop_requested() {
  if (!g_stop_requested.load()) return false;
  return g_deferrals.load() == 0 || g_requests.load() > 1;
}
StopDeferral::StopDeferral() { g_deferrals.fetch_add(1); }
StopDeferral::~StopDeferral() { g_deferrals.fetch_sub(1); }
const std::atomic<bool>& stop_flag() { return g_stop_requested; }
void forget_stop_request() {
  g_stop_requested.store(false);
  g_requeue.store(false);
  g_requests.store(0);
}
int stop_signal_number() { return g_signal_number.load(); }
bool requeue_requested() { return g_requeue.load(); }
void request_requeue() {
  g_requests.fetch_add(1);
  g_requeue.store(true);
  g_stop_requested.store(true);
}

void throw_if_stop_requested(const std::string& phase) {
  if (stop_requested()) throw Interrupted(phase + ": stopped by request");
}

}  // namespace hamgan
