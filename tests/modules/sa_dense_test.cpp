// sa_dense: SAGAN's self-attention over all n keys (no 2×2 pooling) against an explicit
// double-precision softmax(θᵀφ)·g, its parameter and MAC counts, and the arithmetic that ties the
// Hamburger paper's Table 3 "SA" row to a wider non-local block.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "core/errors.h"
#include "modules/attention.h"
#include "modules/bench_modules.h"

namespace hamgan {
namespace {

ContextBlock dense_block(int64_t channels) {
  ContextOptions o;
  o.name = "sa_dense";
  return make_context_block(o, channels);
}

TEST(SaDense, EqualsExplicitSoftmaxFormula) {
  torch::manual_seed(3);
  auto block = std::dynamic_pointer_cast<SelfAttentionImpl>(dense_block(16));
  ASSERT_TRUE(block);
  EXPECT_FALSE(block->pooled);
  block->to(torch::kDouble);
  block->eval();  // u frozen: normalized_weight() is what forward uses
  {
    torch::NoGradGuard ng;
    block->sigma.fill_(0.6);
  }
  // Odd, non-square map: no pooling, so any H and W; n = 15 keys per query.
  const int64_t b = 2, c = 16, h = 3, w = 5, n = h * w;
  auto x = torch::randn({b, c, h, w}, torch::kDouble);
  torch::NoGradGuard ng;
  const auto y = block->forward(x);

  auto flat = [](const torch::Tensor& t) { return t.reshape({t.size(0), -1}); };
  const auto wq = flat(block->theta->normalized_weight()), wk = flat(block->phi->normalized_weight());
  const auto wv = flat(block->g->normalized_weight()), wo = flat(block->o->normalized_weight());
  const auto xa = x.reshape({b, c, n});
  auto expected = torch::empty({b, c, n}, torch::kDouble);
  for (int64_t bi = 0; bi < b; ++bi) {
    const auto theta = wq.mm(xa[bi]), phi = wk.mm(xa[bi]), g = wv.mm(xa[bi]);  // (C/8, n), (C/8, n), (C/2, n)
    auto attended = torch::zeros({c / 2, n}, torch::kDouble);
    for (int64_t i = 0; i < n; ++i) {
      // softmax over the keys j of θ_iᵀφ_j (no 1/√d scale), then Σ_j a_ij g_j.
      std::vector<double> logits(n);
      double mx = -1e300, z = 0;
      for (int64_t j = 0; j < n; ++j) {
        logits[j] = (theta.select(1, i) * phi.select(1, j)).sum().item<double>();
        mx = std::max(mx, logits[j]);
      }
      for (auto& l : logits) z += (l = std::exp(l - mx));
      for (int64_t j = 0; j < n; ++j) attended.select(1, i).add_(g.select(1, j) * (logits[j] / z));
    }
    expected[bi].copy_(xa[bi] + 0.6 * wo.mm(attended));
  }
  EXPECT_TRUE(torch::allclose(y.reshape({b, c, n}), expected, 1e-12, 1e-12))
      << (y.reshape({b, c, n}) - expected).abs().max().item<double>();
  EXPECT_GT((y - x).abs().max().item<double>(), 1e-3);
}

TEST(SaDense, ParameterAndMacCounts) {
  // Same maps as sa: θ, φ C→C/8, g C→C/2, o C/2→C, σ. At C = 512: 327,681.
  int64_t params = 0;
  for (const auto& p : dense_block(512)->parameters()) params += p.numel();
  EXPECT_EQ(params, 2 * 512 * 64 + 2 * 512 * 256 + 1);
  EXPECT_EQ(params, 327681);
  int64_t sa_params = 0;
  ContextOptions sa;
  sa.name = "sa";
  for (const auto& p : make_context_block(sa, 512)->parameters()) sa_params += p.numel();
  EXPECT_EQ(params, sa_params);  // pooling has no weights

  // Table 3's shape 1×512×128×128: convs n·C·(C/4 + C) plus n² keys over C/8 + C/2 channels.
  ContextOptions o;
  o.name = "sa_dense";
  const int64_t n = 128 * 128, c = 512;
  EXPECT_EQ(module_macs(o, {1, c, 128, 128}), n * c * (c / 4 + c) + n * n * (c / 8 + c / 2));  // 88.6G
  EXPECT_EQ(module_macs(sa, {1, c, 128, 128}), n * c * (c / 4 + c) + n * (n / 4) * (c / 8 + c / 2));

  // The paper's row (1.00M params, 292G MACs) is a non-local block keeping C channels in θ, φ, g
  // and o: 4C² = 2^20 weights (its "M" is 2^20: Ham's 2C² reads 0.50M) and 4nC² + 2n²C MACs.
  EXPECT_NEAR(4.0 * c * c / (1 << 20), 1.00, 0.005);
  EXPECT_NEAR((4.0 * n * c * c + 2.0 * n * n * c) / 1e9, 292.0, 0.5);
  EXPECT_NEAR(2.0 * c * c / (1 << 20), 0.50, 0.005);
}

TEST(SaDense, AnyMapSizeButChannelsDivisibleByEight) {
  auto block = dense_block(8);
  EXPECT_EQ(block->forward(torch::randn({1, 8, 1, 3})).sizes(), (std::vector<int64_t>{1, 8, 1, 3}));
  EXPECT_NE(block->describe().find("sa_dense(C=8"), std::string::npos) << block->describe();
  try {
    dense_block(12);
    ADD_FAILURE() << "accepted 12 channels";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("sa_dense"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hamgan
