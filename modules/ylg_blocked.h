#pragma once
// Structured YLG kernel: the same attention as the dense-masked reference,
// computed only over each query's allowed keys without materialising
// per-query key copies (mask rules in docs/modules.md, "ylg: YLG local attention").
//  - Floor heads (RF, LF; even heads): in ESA rank order the allowed keys of a
//    query are the ranks of its own s-block, so queries sorted by rank form
//    blocks of 4·s queries (4 tiled copies) × s keys: a batched block matmul
//    with a triangular mask.
//  - Repetitive heads (RR, LR; odd heads): ⌊n/s⌋ summary keys shared by all
//    queries plus the query's own key (key cell q mod n, by the tiling quirk).
#include <torch/torch.h>

namespace hamgan {

struct YlgBlockedPlan {
  int64_t height = -1, width = -1, n = 0, s = 0, blocks = 0;
  torch::Tensor key_rank_index;     // (blocks·s): key cell at each (padded) rank
  torch::Tensor query_sort_index;   // (blocks·4s): query at each (padded) sorted slot
  torch::Tensor query_unsort_index; // (H·W): sorted slot of each query
  torch::Tensor floor_bias;         // (4, blocks, 4s, s): 0 allowed, −inf not
  torch::Tensor summary_index;      // (4, m): summary key cells of each repetitive head
  torch::Tensor self_bias;          // (4, H·W): −inf where the own key is already a summary key
};

YlgBlockedPlan make_ylg_blocked_plan(int64_t height, int64_t width, const torch::TensorOptions& options);

// q: (B, 8, dq, N), k: (B, 8, dq, N/4), v: (B, 8, dv, N/4) → (B, 8, dv, N), heads in reference order.
torch::Tensor ylg_blocked_attention(const YlgBlockedPlan& plan, const torch::Tensor& q, const torch::Tensor& k,
                                    const torch::Tensor& v);

}  // namespace hamgan
