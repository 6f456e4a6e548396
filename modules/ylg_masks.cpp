// YLG mask construction, following ylg/masks.py as described in
// docs/modules.md, "ylg: YLG local attention".
#include "modules/ylg_masks.h"

#include <cmath>

#include "core/errors.h"

namespace hamgan {

const std::vector<YlgPattern>& ylg_head_patterns() {
  static const std::vector<YlgPattern> heads = {
      YlgPattern::kRightFloor, YlgPattern::kRightRepetitive, YlgPattern::kRightFloor, YlgPattern::kRightRepetitive,
      YlgPattern::kLeftFloor,  YlgPattern::kLeftRepetitive,  YlgPattern::kLeftFloor,  YlgPattern::kLeftRepetitive};
  return heads;
}

std::string to_string(YlgPattern p) {
  switch (p) {
    case YlgPattern::kLeftFloor: return "LeftFloor";
    case YlgPattern::kRightFloor: return "RightFloor";
    case YlgPattern::kLeftRepetitive: return "LeftRepetitive";
    case YlgPattern::kRightRepetitive: return "RightRepetitive";
  }
  return "?";
}

std::vector<int64_t> esa_cells(int64_t rows, int64_t cols) {
  std::vector<int64_t> cells;
  cells.reserve(rows * cols);
  for (int64_t d = 0; d <= rows + cols - 2; ++d)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t c = d - r;
      if (c >= 0 && c < cols) cells.push_back(r * cols + c);
    }
  return cells;
}

bool ylg_allows_1d(YlgPattern p, int64_t o, int64_t i, int64_t n, int64_t s) {
  switch (p) {
    case YlgPattern::kLeftFloor:  // i ∈ [o − (o mod s), o]
      return i <= o && i >= o - o % s;
    case YlgPattern::kRightFloor:  // transpose of LeftFloor
      return o <= i && o >= i - i % s;
    case YlgPattern::kLeftRepetitive:  // itself + every summary position i mod s = s − 1
      return i == o || i % s == s - 1;
    case YlgPattern::kRightRepetitive:
      // itself + the LeftRepetitive columns shifted left by s − 1, i.e. block
      // starts i mod s = 0 — but only of *complete* blocks (i + s − 1 < n);
      // equal to "i mod s = 0" whenever s divides n (always at 32×32).
      return i == o || (i % s == 0 && i + s - 1 < n);
  }
  return false;
}

torch::Tensor ylg_masks(int64_t height, int64_t width) {
  if (height < 2 || width < 2 || height % 2 || width % 2)
    throw ModelError("ylg attention needs an even feature map of at least 2×2, got " + std::to_string(height) + "×" +
                     std::to_string(width));
  const int64_t rows = height / 2, cols = width / 2, n = rows * cols, n_out = height * width;
  const auto s = static_cast<int64_t>(std::floor(std::sqrt(static_cast<double>(n)) + 1e-9));
  const auto cells = esa_cells(rows, cols);
  const auto& heads = ylg_head_patterns();
  // M_small: the 1-D pattern moved to the key grid through the ESA order.
  auto small = torch::zeros({static_cast<int64_t>(heads.size()), n, n}, torch::kBool);
  auto a = small.accessor<bool, 3>();
  for (size_t h = 0; h < heads.size(); ++h)
    for (int64_t o = 0; o < n; ++o)
      for (int64_t i = 0; i < n; ++i)
        if (ylg_allows_1d(heads[h], o, i, n, s)) a[h][cells[o]][cells[i]] = true;
  // Output tiling quirk of the reference (get_grid_indices_from_1d): the n×n
  // mask is stacked H·W/n = 4 times, so query q uses row q mod n — not the
  // key cell under the query. Kept for faithfulness.
  return small.repeat({1, n_out / n, 1}).contiguous();  // (8, H·W, n)
}

}  // namespace hamgan
