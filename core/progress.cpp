#include "core/progress.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

namespace hamgan {

static std::atomic<bool> g_enabled{true};

void ProgressBar::set_enabled(bool on) { g_enabled = on; }
bool ProgressBar::enabled() { return g_enabled; }

std::string format_duration(double s) {
  if (!(s >= 0) || s > 1e8) return "?";
  const long t = static_cast<long>(s + 0.5);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm%02lds", t / 3600, (t / 60) % 60, t % 60);
  else if (t >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

ProgressBar::ProgressBar(std::string label, int64_t total, std::string unit)
    : label_(std::move(label)), unit_(std::move(unit)), total_(total),
      start_(std::chrono::steady_clock::now()), last_draw_(start_), tty_(::isatty(2)) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::advance(int64_t n) {
  done_ += n;
  draw(false);
}

void ProgressBar::set_postfix(std::string s) { postfix_ = std::move(s); }

void ProgressBar::finish() {
  if (finished_) return;
  draw(true);
  finished_ = true;
  if (g_enabled && tty_) std::fputc('\n', stderr);
}

void ProgressBar::draw(bool force) {
  if (!g_enabled || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since_draw = std::chrono::duration<double>(now - last_draw_).count();
  if (!force && since_draw < (tty_ ? 0.1 : 5.0)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? done_ / elapsed : 0.0;
  const double eta = rate > 0 && total_ > 0 ? (total_ - done_) / rate : -1;
  const double frac = total_ > 0 ? std::min(1.0, double(done_) / total_) : 0.0;
  const int width = 24, filled = static_cast<int>(frac * width);
  std::string bar(filled, '#');
  bar.resize(width, '.');
  std::fprintf(stderr, "%s%s [%s] %3d%% %lld/%lld %.1f %s/s elapsed %s ETA %s%s%s%s",
               tty_ ? "\r\033[K" : "", label_.c_str(), bar.c_str(), static_cast<int>(frac * 100),
               static_cast<long long>(done_), static_cast<long long>(total_), rate, unit_.c_str(),
               format_duration(elapsed).c_str(), eta >= 0 ? format_duration(eta).c_str() : "?",
               postfix_.empty() ? "" : " ", postfix_.c_str(), tty_ ? "" : "\n");
  std::fflush(stderr);
}

}  // namespace hamgan
