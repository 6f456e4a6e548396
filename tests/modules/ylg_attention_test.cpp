// YLG attention and its masks (docs/modules.md, `ylg`) against a naive double-precision masked
// reference and an independent mask construction (tests/modules/attention_oracle.h).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>

#include "modules/attention.h"
#include "modules/ylg_blocked.h"
#include "modules/ylg_masks.h"
#include "tests/modules/attention_oracle.h"

using namespace hamgan;
using namespace hamgan::test;

namespace {

std::shared_ptr<YlgAttentionImpl> make_ylg(int64_t c, YlgKernel kernel, double sigma) {
  auto b = std::make_shared<YlgAttentionImpl>(c, kernel);
  b->to(torch::kDouble);
  torch::NoGradGuard ng;
  b->sigma.fill_(sigma);
  b->eval();
  return b;
}

}  // namespace

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
