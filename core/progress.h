#pragma once
// A terminal progress bar with rate and ETA for long work (prepare, training,
// sampling, feature extraction). Redraws at most ~10 times a second on a TTY;
// when stderr is not a terminal it prints a plain line every few seconds.
#include <chrono>
#include <cstdint>
#include <string>

namespace hamgan {

class ProgressBar {
 public:
  ProgressBar(std::string label, int64_t total, std::string unit = "it");
  ~ProgressBar();
  void advance(int64_t n = 1);      // n more units done
  void set_postfix(std::string s);  // e.g. latest losses
  void finish();                    // final redraw and newline (idempotent)
  static void set_enabled(bool on);  // tests and --quiet turn drawing off
  static bool enabled();

 private:
  void draw(bool force);
  std::string label_, unit_, postfix_;
  int64_t total_, done_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool finished_ = false, tty_;
};

std::string format_duration(double seconds);  // "1h02m03s", "4m05s", "6s"

// Sets whether bars draw for the scope's lifetime and puts the previous setting back.
class ProgressEnabledScope {
 public:
  explicit ProgressEnabledScope(bool on) : previous_(ProgressBar::enabled()) { ProgressBar::set_enabled(on); }
  ~ProgressEnabledScope() { ProgressBar::set_enabled(previous_); }
  ProgressEnabledScope(const ProgressEnabledScope&) = delete;
  ProgressEnabledScope& operator=(const ProgressEnabledScope&) = delete;

 private:
  bool previous_;
};

}  // namespace hamgan
