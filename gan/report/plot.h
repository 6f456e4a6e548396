#pragma once
// `hamgan plot`: renders a run's metrics.jsonl as line charts in one PNG
// (losses, D outputs, speed, evaluation metrics), with no plotting dependency:
// a small rasteriser and a bitmap font, written through save_png.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hamgan {

struct PlotConfig {
  std::string run_dir;    // directory holding metrics.jsonl
  std::string out;        // PNG path; empty = <run_dir>/curves.png
  int64_t width = 560;    // pixels per panel
  int64_t height = 320;
};

// Returns the path written. Throws DataError when the log is missing or has no rows.
std::string plot_run(const PlotConfig& cfg);

// Draws `panels` (title → series names; each series is a key of the rows, x is
// the rows' "step") two per row into one PNG of panel size width × height.
void plot_rows(const std::vector<std::map<std::string, double>>& rows,
               const std::vector<std::pair<std::string, std::vector<std::string>>>& panels, const std::string& out,
               int64_t width, int64_t height);

// The panels drawn from a set of rows: title → series names present in the rows.
std::vector<std::pair<std::string, std::vector<std::string>>> plot_panels(
    const std::vector<std::map<std::string, double>>& rows);

}  // namespace hamgan
