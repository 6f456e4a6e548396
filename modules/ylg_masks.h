#pragma once
// YLG attention masks (docs/modules.md, "ylg: YLG local attention"), generalised from the 32×32
// query / 16×16 key grid to any even H×W: keys live on the (H/2)×(W/2) grid,
// n = (H/2)(W/2), the 1-D stride is ⌊√n⌋, and the reference's output tiling
// (query q uses key-grid row q mod n) is kept.
#include <torch/torch.h>

#include <string>
#include <vector>

namespace hamgan {

enum class YlgPattern { kLeftFloor, kRightFloor, kLeftRepetitive, kRightRepetitive };

// Head order of the reference: RF, RR, RF, RR, LF, LR, LF, LR.
const std::vector<YlgPattern>& ylg_head_patterns();
std::string to_string(YlgPattern p);

// ESA enumeration of a rows×cols grid: cell (row-major index) of each rank,
// ranks ordered by Manhattan distance from (0, 0), ties by row ascending.
std::vector<int64_t> esa_cells(int64_t rows, int64_t cols);

// 1-D pattern on n positions with stride s: may output o attend input i?
bool ylg_allows_1d(YlgPattern p, int64_t o, int64_t i, int64_t n, int64_t s);

// Allowed-key masks, bool (8, H·W, (H/2)·(W/2)), on the CPU. H and W must be even.
torch::Tensor ylg_masks(int64_t height, int64_t width);

}  // namespace hamgan
