// Structured YLG kernel (see ylg_blocked.h); tested against the dense-masked
// reference and a naive loop implementation in tests/modules/attention_test.cpp.
#include "modules/ylg_blocked.h"

#include <cmath>
#include <limits>

#include "modules/ylg_masks.h"
#include "modules/fp32_region.h"

namespace hamgan {

YlgBlockedPlan make_ylg_blocked_plan(int64_t height, int64_t width, const torch::TensorOptions& options) {
  const auto& heads = ylg_head_patterns();
  auto is_floor = [](YlgPattern p) { return p == YlgPattern::kLeftFloor || p == YlgPattern::kRightFloor; };
  TORCH_CHECK(heads.size() == 8, "ylg: expected 8 heads");
  for (int64_t h = 0; h < 8; ++h)
    TORCH_CHECK(is_floor(heads[h]) == (h % 2 == 0), "ylg blocked kernel assumes floor heads at even positions");
  YlgBlockedPlan p;
  p.height = height;
  p.width = width;
  const int64_t rows = height / 2, cols = width / 2, n = rows * cols, n_out = 4 * n;
  const auto s = static_cast<int64_t>(std::floor(std::sqrt(static_cast<double>(n)) + 1e-9));
  const int64_t nb = (n + s - 1) / s;
  p.n = n;
  p.s = s;
  p.blocks = nb;
  const auto cells = esa_cells(rows, cols);  // rank → cell
  std::vector<int64_t> rank_of(n);
  for (int64_t r = 0; r < n; ++r) rank_of[cells[r]] = r;

  auto key_rank = torch::empty({nb * s}, torch::kLong);
  for (int64_t r = 0; r < nb * s; ++r) key_rank[r] = cells[std::min(r, n - 1)];
  // Sorted slot j holds copy t = j mod 4 of the query whose tiled key-grid row
  // has rank o = j / 4; query q = t·n + cell (the reference's tiling quirk).
  auto sort = torch::zeros({nb * 4 * s}, torch::kLong);
  auto unsort = torch::empty({n_out}, torch::kLong);
  for (int64_t j = 0; j < n * 4; ++j) sort[j] = (j % 4) * n + cells[j / 4];
  for (int64_t q = 0; q < n_out; ++q) unsort[q] = rank_of[q % n] * 4 + q / n;

  const double inf = std::numeric_limits<double>::infinity();
  auto floor_bias = torch::full({4, nb, 4 * s, s}, -inf, torch::kDouble);
  auto fb = floor_bias.accessor<double, 4>();
  for (int64_t g = 0; g < 4; ++g)
    for (int64_t b = 0; b < nb; ++b)
      for (int64_t jl = 0; jl < 4 * s; ++jl)
        for (int64_t kl = 0; kl < s; ++kl) {
          const int64_t o = b * s + jl / 4, i = b * s + kl;
          // Padding query rows (o ≥ n) are discarded; any real key keeps their softmax finite.
          const bool ok = i < n && (o >= n || ylg_allows_1d(heads[2 * g], o, i, n, s));
          if (ok) fb[g][b][jl][kl] = 0.0;
        }

  // Summary keys: the positions a repetitive head allows for every query.
  std::vector<std::vector<int64_t>> summary(4);
  for (int64_t g = 0; g < 4; ++g)
    for (int64_t i = 0; i < n; ++i) {
      const int64_t other = i == 0 ? 1 : 0;  // a query rank ≠ i
      if (n > 1 && ylg_allows_1d(heads[2 * g + 1], other, i, n, s)) summary[g].push_back(i);
    }
  const auto m = static_cast<int64_t>(summary[0].size());
  auto summary_index = torch::empty({4, m}, torch::kLong);
  auto self_bias = torch::zeros({4, n_out}, torch::kDouble);
  for (int64_t g = 0; g < 4; ++g) {
    TORCH_CHECK(static_cast<int64_t>(summary[g].size()) == m, "ylg: repetitive heads differ in summary size");
    std::vector<bool> is_summary(n, false);
    for (int64_t j = 0; j < m; ++j) {
      summary_index[g][j] = cells[summary[g][j]];
      is_summary[summary[g][j]] = true;
    }
    // The own key (cell q mod n) counts once: drop the extra slot when it is a summary key.
    for (int64_t q = 0; q < n_out; ++q)
      if (is_summary[rank_of[q % n]]) self_bias[g][q] = -inf;
  }
  const auto dev = options.device();
  p.key_rank_index = key_rank.to(dev);
  p.query_sort_index = sort.to(dev);
  p.query_unsort_index = unsort.to(dev);
  p.floor_bias = floor_bias.to(options);
  p.summary_index = summary_index.to(dev);
  p.self_bias = self_bias.to(options);
  return p;
}

torch::Tensor ylg_blocked_attention(const YlgBlockedPlan& p, const torch::Tensor& q, const torch::Tensor& k,
                                    const torch::Tensor& v) {
  const int64_t b = q.size(0), dq = q.size(2), dv = v.size(2), n_out = q.size(3), n = p.n, s = p.s, nb = p.blocks;
  // Even heads are floor heads, odd heads repetitive: split (B, 8, d, ·) into 4 × 2.
  const auto q5 = q.view({b, 4, 2, dq, n_out}), k5 = k.view({b, 4, 2, dq, n}), v5 = v.view({b, 4, 2, dv, n});

  // Floor heads: per block, 4s sorted queries × s keys in rank order.
  const auto qs = q5.select(2, 0).index_select(3, p.query_sort_index).view({b, 4, dq, nb, 4 * s})
                      .permute({0, 1, 3, 4, 2});  // (B, 4, nb, 4s, dq)
  const auto ks = k5.select(2, 0).index_select(3, p.key_rank_index).view({b, 4, dq, nb, s})
                      .permute({0, 1, 3, 2, 4});  // (B, 4, nb, dq, s)
  const auto vs = v5.select(2, 0).index_select(3, p.key_rank_index).view({b, 4, dv, nb, s})
                      .permute({0, 1, 3, 4, 2});  // (B, 4, nb, s, dv)
  auto floor_out = torch::softmax(to_fp32_if_reduced(qs.matmul(ks) + p.floor_bias), -1).matmul(vs);  // (B, 4, nb, 4s, dv)
  floor_out = floor_out.permute({0, 1, 4, 2, 3}).reshape({b, 4, dv, nb * 4 * s})
                  .index_select(3, p.query_unsort_index);  // (B, 4, dv, N)

  // Repetitive heads: m shared summary keys + the own key (cell q mod n).
  const auto qr = q5.select(2, 1), kr = k5.select(2, 1), vr = v5.select(2, 1);
  const int64_t m = p.summary_index.size(1);
  const auto idx = p.summary_index.view({1, 4, 1, m});
  const auto k_sum = kr.gather(3, idx.expand({b, 4, dq, m}));  // (B, 4, dq, m)
  const auto v_sum = vr.gather(3, idx.expand({b, 4, dv, m}));  // (B, 4, dv, m)
  const auto self_logit = (qr * kr.repeat({1, 1, 1, 4})).sum(2) + p.self_bias;  // (B, 4, N)
  const auto attn = torch::softmax(torch::cat({qr.transpose(2, 3).matmul(k_sum), self_logit.unsqueeze(-1)}, -1),
                                   -1);  // (B, 4, N, m+1)
  const auto rep_out = v_sum.matmul(attn.narrow(-1, 0, m).transpose(2, 3)) +
                       vr.repeat({1, 1, 1, 4}) * attn.select(-1, m).unsqueeze(2);  // (B, 4, dv, N)

  return torch::stack({floor_out, rep_out}, 2).view({b, 8, dv, n_out});
}

}  // namespace hamgan
