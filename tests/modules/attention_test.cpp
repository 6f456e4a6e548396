// SAGAN attention (architecture.md §1.5) and YLG attention (§2.2, §2.3)
// against naive double-precision references and an independent mask construction.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>

#include "modules/attention.h"
#include "modules/ylg_blocked.h"
#include "modules/ylg_masks.h"

using namespace hamgan;

namespace {

torch::Tensor conv1x1(const torch::Tensor& x, const torch::Tensor& w) {  // w: (out, in, 1, 1)
  return torch::einsum("oi,bihw->bohw", {w.flatten(1), x});
}

torch::Tensor maxpool2(const torch::Tensor& t) {  // explicit 2×2 windows
  const auto b = t.size(0), c = t.size(1), h = t.size(2), w = t.size(3);
  return t.reshape({b, c, h / 2, 2, w / 2, 2}).amax({3, 5});
}

struct Weights {
  torch::Tensor wq, wk, wv, wo;
  double sigma;
};

Weights weights_of(AttentionBaseImpl& a) {
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
// anti-diagonal with a smaller row) and apply the 1-D rules of §2.3.
torch::Tensor independent_masks(int64_t h, int64_t w) {
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

std::shared_ptr<YlgAttentionImpl> make_ylg(int64_t c, YlgKernel kernel, double sigma) {
  auto b = std::make_shared<YlgAttentionImpl>(c, kernel);
  b->to(torch::kDouble);
  torch::NoGradGuard ng;
  b->sigma.fill_(sigma);
  b->eval();
  return b;
}

}  // namespace

TEST(SelfAttention, MatchesNaiveSoftmaxReference) {
  torch::manual_seed(0);
  for (auto hw : {std::pair<int64_t, int64_t>{4, 4}, {6, 8}}) {
    SelfAttentionImpl sa(16);
    sa.to(torch::kDouble);
    {
      torch::NoGradGuard ng;
      sa.sigma.fill_(0.8);
    }
    auto w = weights_of(sa);
    auto x = torch::randn({2, 16, hw.first, hw.second}, torch::kDouble) * 2;
    auto expected = naive_attention(x, w, 1, [](int64_t, int64_t, int64_t) { return false; });
    EXPECT_TRUE(torch::allclose(sa.forward(x), expected, 1e-10, 1e-12));
  }
}

TEST(SelfAttention, IdentityAtInitAndStructure) {
  torch::manual_seed(1);
  SelfAttentionImpl sa(32);
  auto x = torch::randn({2, 32, 8, 8});
  EXPECT_TRUE(torch::equal(sa.forward(x), x));
  EXPECT_EQ(sa.theta->weight.sizes(), (std::vector<int64_t>{4, 32, 1, 1}));
  EXPECT_EQ(sa.g->weight.sizes(), (std::vector<int64_t>{16, 32, 1, 1}));
  EXPECT_EQ(sa.o->weight.sizes(), (std::vector<int64_t>{32, 16, 1, 1}));
  for (auto* m : {&sa.theta, &sa.phi, &sa.g, &sa.o}) {
    EXPECT_FALSE((*m)->bias.defined());
    EXPECT_EQ((*m)->options.mode(), SNMode::kExact);
  }
  EXPECT_THROW(sa.forward(torch::randn({1, 32, 5, 4})), std::exception);  // odd side
}

TEST(SelfAttention, GradientMatchesFiniteDifferences) {
  torch::manual_seed(2);
  SelfAttentionImpl sa(16);
  sa.to(torch::kDouble);
  {
    torch::NoGradGuard ng;
    sa.sigma.fill_(0.9);
  }
  sa.eval();
  auto x = torch::randn({1, 16, 4, 4}, torch::kDouble).requires_grad_(true);
  auto r = torch::randn({1, 16, 4, 4}, torch::kDouble);
  (sa.forward(x) * r).sum().backward();
  auto flat = x.detach().clone().view({-1});
  for (int64_t i = 0; i < flat.numel(); i += 13) {
    torch::NoGradGuard ng;
    auto xp = flat.clone(), xm = flat.clone();
    xp[i] += 1e-6;
    xm[i] -= 1e-6;
    const double fd = ((sa.forward(xp.view(x.sizes())) - sa.forward(xm.view(x.sizes()))) * r).sum().item<double>() / 2e-6;
    EXPECT_NEAR(x.grad().view({-1})[i].item<double>(), fd, 1e-6);
  }
}

TEST(YlgMasks, MatchIndependentConstruction) {
  for (auto hw : {std::pair<int64_t, int64_t>{32, 32}, {8, 8}, {8, 12}, {6, 12}, {4, 4}, {2, 2}})
    EXPECT_TRUE(torch::equal(ylg_masks(hw.first, hw.second), independent_masks(hw.first, hw.second)))
        << hw.first << "x" << hw.second;
}

TEST(YlgMasks, ReferenceChecksumsAt32x32) {
  const auto m = ylg_masks(32, 32);
  ASSERT_EQ(m.sizes(), (std::vector<int64_t>{8, 1024, 256}));
  const auto& heads = ylg_head_patterns();
  for (int64_t h = 0; h < 8; ++h) {
    const auto per_query = m[h].sum(-1).to(torch::kDouble);
    const bool floor = heads[h] == YlgPattern::kLeftFloor || heads[h] == YlgPattern::kRightFloor;
    EXPECT_EQ(m[h].sum().item<int64_t>(), floor ? 8704 : 17344) << to_string(heads[h]);
    EXPECT_EQ(per_query.min().item<double>(), floor ? 1 : 16);
    EXPECT_DOUBLE_EQ(per_query.mean().item<double>(), floor ? 8.5 : 16.9375);
    EXPECT_EQ(per_query.max().item<double>(), floor ? 16 : 17);
  }
  // LeftFloor (head 4), query 0 → {(0,0)}; RightFloor (head 0), query 0 → first 16 ESA cells.
  EXPECT_EQ(m[4][0].nonzero().size(0), 1);
  EXPECT_TRUE(m[4][0][0].item<bool>());
  const int rf[16][2] = {{0, 0}, {0, 1}, {1, 0}, {0, 2}, {1, 1}, {2, 0}, {0, 3}, {1, 2},
                         {2, 1}, {3, 0}, {0, 4}, {1, 3}, {2, 2}, {3, 1}, {4, 0}, {0, 5}};
  std::set<int64_t> expected;
  for (const auto& c : rf) expected.insert(c[0] * 16 + c[1]);
  std::set<int64_t> got;
  auto nz = m[0][0].nonzero().view({-1});
  for (int64_t i = 0; i < nz.numel(); ++i) got.insert(nz[i].item<int64_t>());
  EXPECT_EQ(got, expected);
  // Tiling quirk: query (r, c) uses the row of query (r mod 8, c).
  EXPECT_TRUE(torch::equal(m.select(1, 8 * 32 + 5), m.select(1, 5)));
}

TEST(YlgAttention, EveryKernelMatchesNaiveMaskedReference) {
  torch::manual_seed(3);
  for (auto hw : {std::pair<int64_t, int64_t>{8, 8}, {6, 12}, {4, 8}, {2, 2}, {32, 32}}) {
    const int64_t c = 64;
    auto dense = make_ylg(c, YlgKernel::kDense, 0.8);
    const int64_t batch = hw.first == 32 ? 1 : 2;
    auto x = torch::randn({batch, c, hw.first, hw.second}, torch::kDouble) * 3;
    const auto mask = independent_masks(hw.first, hw.second);
    auto ma = mask.accessor<bool, 3>();
    auto expected = naive_attention(x, weights_of(*dense), 8,
                                    [&](int64_t h, int64_t q, int64_t k) { return !ma[h][q][k]; });
    EXPECT_TRUE(torch::allclose(dense->forward(x), expected, 1e-10, 1e-12)) << hw.first << "x" << hw.second;
    for (auto kernel : {YlgKernel::kGather, YlgKernel::kBlocked}) {
      auto other = make_ylg(c, kernel, 0.8);
      {
        torch::NoGradGuard ng;
        for (size_t i = 0; i < dense->parameters().size(); ++i) other->parameters()[i].copy_(dense->parameters()[i]);
        for (size_t i = 0; i < dense->buffers().size(); ++i) other->buffers()[i].copy_(dense->buffers()[i]);
      }
      EXPECT_TRUE(torch::allclose(other->forward(x), expected, 1e-10, 1e-12))
          << other->describe() << " " << hw.first << "x" << hw.second;
    }
  }
}

TEST(YlgAttention, KernelsAgreeInFloat32WithTrainingUpdates) {
  // float32, training mode (SN u updates): the three kernels stay within float rounding.
  torch::manual_seed(5);
  std::vector<std::shared_ptr<YlgAttentionImpl>> blocks;
  for (auto kernel : {YlgKernel::kDense, YlgKernel::kGather, YlgKernel::kBlocked}) {
    torch::manual_seed(6);
    blocks.push_back(std::make_shared<YlgAttentionImpl>(128, kernel));
    torch::NoGradGuard ng;
    blocks.back()->sigma.fill_(1.0);
  }
  auto x = torch::randn({2, 128, 16, 16});
  const auto ref = blocks[0]->forward(x);
  for (size_t i = 1; i < blocks.size(); ++i)
    EXPECT_TRUE(torch::allclose(blocks[i]->forward(x), ref, 1e-4, 1e-5)) << blocks[i]->describe();
}

TEST(YlgAttention, GradientsMatchFiniteDifferences) {
  for (auto kernel : {YlgKernel::kGather, YlgKernel::kBlocked}) {
    torch::manual_seed(4);
    auto ylg = make_ylg(64, kernel, 0.9);
    auto x = torch::randn({1, 64, 4, 4}, torch::kDouble).requires_grad_(true);
    auto r = torch::randn({1, 64, 4, 4}, torch::kDouble);
    (ylg->forward(x) * r).sum().backward();
    auto flat = x.detach().clone().view({-1});
    for (int64_t i = 0; i < flat.numel(); i += 37) {
      torch::NoGradGuard ng;
      auto xp = flat.clone(), xm = flat.clone();
      xp[i] += 1e-6;
      xm[i] -= 1e-6;
      const double fd =
          ((ylg->forward(xp.view(x.sizes())) - ylg->forward(xm.view(x.sizes()))) * r).sum().item<double>() / 2e-6;
      EXPECT_NEAR(x.grad().view({-1})[i].item<double>(), fd, 1e-6) << ylg->describe();
    }
  }
}

TEST(YlgAttention, BlockedKernelAttendsExactlyTheAllowedKeys) {
  // With one-hot values (dv = n, v[d, key] = δ(d, key)) the kernel's output
  // is the attention matrix itself: its support must be the independent mask.
  torch::manual_seed(6);
  for (auto hw : {std::pair<int64_t, int64_t>{8, 8}, {6, 12}, {32, 32}}) {
    const int64_t n_out = hw.first * hw.second, n = n_out / 4;
    const auto opts = torch::TensorOptions(torch::kDouble);
    const auto plan = make_ylg_blocked_plan(hw.first, hw.second, opts);
    auto q = torch::randn({1, 8, 2, n_out}, opts), k = torch::randn({1, 8, 2, n}, opts);
    auto v = torch::eye(n, opts).expand({1, 8, n, n}).contiguous();
    const auto attn = ylg_blocked_attention(plan, q, k, v)[0].transpose(1, 2);  // (8, N, n)
    EXPECT_TRUE(torch::equal(attn > 0, independent_masks(hw.first, hw.second))) << hw.first << "x" << hw.second;
    EXPECT_TRUE(torch::allclose(attn.sum(-1), torch::ones({8, n_out}, opts), 1e-12, 1e-12));
  }
}
