#pragma once
// Independent double-precision references for the attention tests: explicit loops for the
// (masked, multi-head) attention product and a mask construction that shares no code with
// modules/ylg_masks.cpp.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "modules/attention.h"

namespace hamgan::test {

inline torch::Tensor conv1x1(const torch::Tensor& x, const torch::Tensor& w) {  // w: (out, in, 1, 1)
  return torch::einsum("oi,bihw->bohw", {w.flatten(1), x});
}

inline torch::Tensor maxpool2(const torch::Tensor& t) {  // explicit 2×2 windows
  const auto b = t.size(0), c = t.size(1), h = t.size(2), w = t.size(3);
  return t.reshape({b, c, h / 2, 2, w / 2, 2}).amax({3, 5});
}

struct Weights {
  torch::Tensor wq, wk, wv, wo;
  double sigma;
};

inline Weights weights_of(AttentionBaseImpl& a) {
  a.eval();  // u frozen: normalized_weight() is what forward uses
  torch::NoGradGuard ng;
  return {a.theta->normalized_weight(), a.phi->normalized_weight(), a.g->normalized_weight(),
          a.o->normalized_weight(), a.sigma.item<double>()};
}

// softmax(QKᵀ)V over pooled keys with explicit loops; `mask(b, head, q, key)`
// says whether to add −1000; heads split channels into contiguous blocks and
// re-merge interleaved (channel d·heads + h).
template <typename MaskFn>
torch::Tensor naive_attention(const torch::Tensor& x, const Weights& w, int64_t heads, MaskFn masked) {
  const int64_t b = x.size(0), h = x.size(2), wd = x.size(3), n_out = h * wd, n = n_out / 4;
  auto q = conv1x1(x, w.wq).reshape({b, -1, n_out});
  auto k = maxpool2(conv1x1(x, w.wk)).reshape({b, -1, n});
  auto v = maxpool2(conv1x1(x, w.wv)).reshape({b, -1, n});
  const int64_t dq = q.size(1) / heads, dv = v.size(1) / heads;
  auto merged = torch::zeros({b, v.size(1), n_out}, torch::kDouble);
  auto qa = q.accessor<double, 3>(), ka = k.accessor<double, 3>(), va = v.accessor<double, 3>();
  auto ma = merged.accessor<double, 3>();
  std::vector<double> logits(n);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hd = 0; hd < heads; ++hd)
      for (int64_t i = 0; i < n_out; ++i) {
        double mx = -1e300;
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t d = 0; d < dq; ++d) s += qa[bi][hd * dq + d][i] * ka[bi][hd * dq + d][j];
          logits[j] = s + (masked(hd, i, j) ? -1000.0 : 0.0);
          mx = std::max(mx, logits[j]);
        }
        double z = 0;
        for (int64_t j = 0; j < n; ++j) z += (logits[j] = std::exp(logits[j] - mx));
        for (int64_t d = 0; d < dv; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < n; ++j) acc += logits[j] / z * va[bi][hd * dv + d][j];
          ma[bi][d * heads + hd][i] = acc;
        }
      }
  return x + w.sigma * conv1x1(merged.view({b, -1, h, wd}), w.wo);
}

// Independent YLG mask: for each (query, key) pair, map both to ESA ranks by
// counting cells (rank = #cells with smaller i+j, plus #cells on the same
// anti-diagonal with a smaller row) and apply the 1-D rules of docs/modules.md, "ylg".
inline torch::Tensor independent_masks(int64_t h, int64_t w) {
  const int64_t rows = h / 2, cols = w / 2, n = rows * cols;
  int64_t s = 0;
  while ((s + 1) * (s + 1) <= n) ++s;
  auto rank = [&](int64_t r, int64_t c) {
    int64_t k = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        if (i + j < r + c || (i + j == r + c && i < r)) ++k;
    return k;
  };
  std::vector<int64_t> rank_of(n);
  for (int64_t cell = 0; cell < n; ++cell) rank_of[cell] = rank(cell / cols, cell % cols);
  const char* order = "FRFRfrfr";  // F/R: RightFloor/RightRepetitive, f/r: Left*
  auto m = torch::zeros({8, h * w, n}, torch::kBool);
  auto a = m.accessor<bool, 3>();
  for (int64_t hd = 0; hd < 8; ++hd)
    for (int64_t q = 0; q < h * w; ++q) {
      const int64_t o = rank_of[q % n];  // the reference's vertical tiling
      for (int64_t key = 0; key < n; ++key) {
        const int64_t i = rank_of[key];
        bool ok = false;
        switch (order[hd]) {
          case 'f': ok = i / s == o / s && i <= o; break;
          case 'F': ok = i / s == o / s && i >= o; break;
          case 'r': ok = i == o || i % s == s - 1; break;
          case 'R': ok = i == o || (i % s == 0 && i + s - 1 < n); break;
        }
        a[hd][q][key] = ok;
      }
    }
  return m;
}

}  // namespace hamgan::test
