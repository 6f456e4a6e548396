#include "gan/report/plot.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/errors.h"
#include "data/image_io.h"
#include "gan/report/plot_font.h"
#include "gan/report/run_log.h"
#include "core/run_paths.h"

namespace hamgan {
namespace {

struct Rgb {
  uint8_t r, g, b;
};
constexpr Rgb kPalette[] = {{31, 119, 180}, {214, 39, 40}, {44, 160, 44}, {148, 103, 189}, {255, 127, 14}, {140, 86, 75}};
constexpr Rgb kInk{0, 0, 0}, kGrid{225, 225, 225};

class Canvas {
 public:
  Canvas(int64_t w, int64_t h) : w_(w), h_(h), px_(torch::full({3, h, w}, 255, torch::kUInt8)), a_(px_.accessor<uint8_t, 3>()) {}
  void set(int64_t x, int64_t y, Rgb c) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
    a_[0][y][x] = c.r, a_[1][y][x] = c.g, a_[2][y][x] = c.b;
  }
  void line(double x0, double y0, double x1, double y1, Rgb c) {  // DDA, one sample per pixel step
    const int64_t n = static_cast<int64_t>(std::ceil(std::max(std::fabs(x1 - x0), std::fabs(y1 - y0)))) + 1;
    for (int64_t i = 0; i <= n; ++i) {
      const double t = static_cast<double>(i) / static_cast<double>(n);
      set(std::lround(x0 + t * (x1 - x0)), std::lround(y0 + t * (y1 - y0)), c);
    }
  }
  void text(int64_t x, int64_t y, const std::string& s, Rgb c) {
    for (char ch : s) {
      const int code = (ch < 32 || ch > 126) ? '?' - 32 : ch - 32;
      for (int row = 0; row < plot_font::kHeight; ++row)
        for (int col = 0; col < plot_font::kWidth; ++col)
          if (plot_font::kGlyphs[code][row] >> (plot_font::kWidth - 1 - col) & 1) set(x + col, y + row, c);
      x += plot_font::kWidth;
    }
  }
  torch::Tensor& pixels() { return px_; }

 private:
  int64_t w_, h_;
  torch::Tensor px_;
  torch::TensorAccessor<uint8_t, 3> a_;
};

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.4g", v);
  return b;
}

// "Nice" tick spacing: 1, 2 or 5 × 10^k giving about `n` ticks over [lo, hi].
double tick_step(double lo, double hi, int n) {
  const double raw = (hi - lo) / n, p = std::pow(10.0, std::floor(std::log10(raw))), m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

void draw_panel(Canvas& cv, int64_t ox, int64_t oy, int64_t w, int64_t h, const std::string& title,
                const std::vector<std::string>& names, const std::vector<std::map<std::string, double>>& rows) {
  const int64_t left = ox + 62, right = ox + w - 12, top = oy + 34, bottom = oy + h - 26;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (const auto& r : rows) {
    const auto s = r.find("step");
    if (s == r.end()) continue;
    for (const auto& n : names) {
      const auto it = r.find(n);
      if (it == r.end() || !std::isfinite(it->second)) continue;
      xmin = std::min(xmin, s->second), xmax = std::max(xmax, s->second);
      ymin = std::min(ymin, it->second), ymax = std::max(ymax, it->second);
    }
  }
  cv.text(ox + 8, oy + 6, title, kInk);
  if (!std::isfinite(xmin)) return;
  if (xmax == xmin) xmin -= 1, xmax += 1;
  if (ymax == ymin) ymin -= 0.5, ymax += 0.5;
  const double pad = 0.05 * (ymax - ymin);
  ymin -= pad, ymax += pad;
  auto X = [&](double x) { return left + (x - xmin) / (xmax - xmin) * static_cast<double>(right - left); };
  auto Y = [&](double y) { return bottom - (y - ymin) / (ymax - ymin) * static_cast<double>(bottom - top); };
  const double ys = tick_step(ymin, ymax, 5), xs = tick_step(xmin, xmax, 5);
  for (double t = std::ceil(ymin / ys) * ys; t <= ymax; t += ys) {
    cv.line(left, Y(t), right, Y(t), kGrid);
    const std::string s = fmt(std::fabs(t) < ys * 1e-6 ? 0.0 : t);
    cv.text(left - 4 - plot_font::kWidth * static_cast<int64_t>(s.size()), std::lround(Y(t)) - 5, s, kInk);
  }
  for (double t = std::ceil(xmin / xs) * xs; t <= xmax; t += xs) {
    cv.line(X(t), top, X(t), bottom, kGrid);
    const std::string s = fmt(t);
    cv.text(std::lround(X(t)) - 3 * static_cast<int64_t>(s.size()), bottom + 6, s, kInk);
  }
  cv.line(left, bottom, right, bottom, kInk);
  cv.line(left, top, left, bottom, kInk);
  int64_t legend_x = ox + 8;
  for (size_t k = 0; k < names.size(); ++k) {
    const Rgb c = kPalette[k % std::size(kPalette)];
    cv.text(legend_x, oy + 19, names[k], c);
    legend_x += plot_font::kWidth * static_cast<int64_t>(names[k].size() + 2);
    bool have = false;
    double px = 0, py = 0;
    for (const auto& r : rows) {
      const auto s = r.find("step"), it = r.find(names[k]);
      if (s == r.end() || it == r.end() || !std::isfinite(it->second)) continue;
      const double x = X(s->second), y = Y(it->second);
      if (have) cv.line(px, py, x, y, c);
      else cv.set(std::lround(x), std::lround(y), c);
      px = x, py = y, have = true;
    }
  }
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> plot_panels(
    const std::vector<std::map<std::string, double>>& rows) {
  std::set<std::string> keys;
  for (const auto& r : rows)
    for (const auto& [k, v] : r) keys.insert(k);
  const std::vector<std::pair<std::string, std::vector<std::string>>> fixed = {
      {"losses", {"d_loss", "g_loss"}}, {"mean D output", {"d_real", "d_fake"}}, {"speed (it/s)", {"it_per_s"}}};
  std::set<std::string> used = {"step", "g_lr", "d_lr", "img_per_s"};
  std::vector<std::pair<std::string, std::vector<std::string>>> panels;
  for (const auto& [title, names] : fixed) {
    std::vector<std::string> present;
    for (const auto& n : names)
      if (keys.count(n)) present.push_back(n), used.insert(n);
    if (!present.empty()) panels.emplace_back(title, present);
  }
  for (const auto& k : keys)  // every other metric (evaluations) gets its own panel
    if (!used.count(k)) panels.push_back({k, {k}});
  return panels;
}

std::string plot_run(const PlotConfig& cfg) {
  const std::string log = RunPaths(cfg.run_dir).metrics_log();
  const auto rows = read_metrics(log);
  if (rows.empty()) throw DataError(log + ": no rows yet; train for at least log_every steps first");
  if (cfg.width < 200 || cfg.height < 120) throw ConfigError("plot: width must be >= 200 and height >= 120");
  const std::string out = cfg.out.empty() ? (std::filesystem::path(cfg.run_dir) / "curves.png").string() : cfg.out;
  plot_rows(rows, plot_panels(rows), out, cfg.width, cfg.height);
  return out;
}

void plot_rows(const std::vector<std::map<std::string, double>>& rows,
               const std::vector<std::pair<std::string, std::vector<std::string>>>& panels, const std::string& out,
               int64_t width, int64_t height) {
  const int64_t cols = panels.size() > 1 ? 2 : 1, nrows = (static_cast<int64_t>(panels.size()) + cols - 1) / cols;
  Canvas cv(cols * width, std::max<int64_t>(1, nrows) * height);
  for (size_t i = 0; i < panels.size(); ++i)
    draw_panel(cv, static_cast<int64_t>(i) % cols * width, static_cast<int64_t>(i) / cols * height, width, height,
               panels[i].first, panels[i].second, rows);
  save_png(cv.pixels(), out);
}

}  // namespace hamgan
