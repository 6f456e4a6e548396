// The MAC counts the blocks register (module_macs) against counts written out by hand at small
// shapes: the 1×1 convs from the built block's own weights (out · in per position), the
// attention and decomposition products as (m × k)·(k × n) = m·k·n each (docs/ham.md,
// "`hamgan bench modules`").
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "modules/attention.h"
#include "modules/context_block.h"
#include "modules/ham_block.h"

namespace hamgan {
namespace {

// One (m × k)·(k × n) product.
int64_t product(int64_t m, int64_t k, int64_t n) { return m * k * n; }

// out · in per position of a 1×1 conv, summed over `convs`, times the positions they run on.
int64_t conv1x1_macs(const std::vector<SNConv2d>& convs, int64_t positions) {
  int64_t sum = 0;
  for (const auto& c : convs) sum += c->weight.size(0) * c->weight.size(1) * positions;
  return sum;
}

ContextOptions named(const std::string& name) {
  ContextOptions o;
  o.name = name;
  return o;
}

TEST(BlockMacs, SelfAttentionByHand) {
  // (2, 16, 4, 4): n = 16 positions, θ, φ: 16 → 2, g: 16 → 8, o: 8 → 16, all over the n positions.
  const std::vector<int64_t> shape{2, 16, 4, 4};
  const int64_t batch = 2, n = 16;
  SelfAttentionImpl sa(16);
  const int64_t convs = conv1x1_macs({sa.theta, sa.phi, sa.g, sa.o}, n);
  EXPECT_EQ(convs, n * (2 * 16 + 2 * 16 + 8 * 16 + 16 * 8));
  // Pooled: 4 keys. Logits θᵀφ (n × 2)·(2 × 4), then A·g (8 × 4)·(4 × n).
  const int64_t pooled = batch * (convs + product(n, 2, 4) + product(8, 4, n));
  EXPECT_EQ(module_macs(named("sa"), shape), pooled);
  EXPECT_EQ(pooled, 11520);
  // sa_dense: all 16 keys.
  const int64_t dense = batch * (convs + product(n, 2, 16) + product(8, 16, n));
  EXPECT_EQ(module_macs(named("sa_dense"), shape), dense);
  EXPECT_EQ(dense, 15360);
  // YLG is counted as the dense masked product over SA's channels: SA's count.
  EXPECT_EQ(module_macs(named("ylg"), {1, 64, 4, 4}), module_macs(named("sa"), {1, 64, 4, 4}));
}

TEST(BlockMacs, HamburgerByHand) {
  // (2, 16, 4, 4): d = C = 16, n = 16, r = 2, K = max(train 3, eval 5) = 5.
  const std::vector<int64_t> shape{2, 16, 4, 4};
  const int64_t batch = 2, c = 16, d = 16, n = 16, r = 2, k = 5;
  HamOptions h;
  h.type = HamType::kVQ;
  h.rank = r;
  h.train_steps = 3;
  h.eval_steps = 5;
  HamBlock block(h, c);
  const int64_t lower = conv1x1_macs({block->lower}, n);
  EXPECT_EQ(lower, 4096);
  // VQ: per step the cosines Xᵀ D (n × d)·(d × r) and X C (d × n)·(n × r); then the final cosines.
  const int64_t vq = k * (product(n, d, r) + product(d, n, r)) + product(n, d, r);
  // Upper bread on the factors: W_u D (C × d)·(d × r), then (W_u D) Cᵀ (C × r)·(r × n).
  const int64_t factored = product(c, d, r) + product(c, r, n);
  EXPECT_EQ(module_macs(ham_context_options(h), shape), batch * (lower + vq + factored));
  EXPECT_EQ(batch * (lower + vq + factored), 21504);
  // With CBN the reconstruction D Cᵀ (d × r)·(r × n) is formed and the upper 1×1 conv runs on it.
  const int64_t literal = product(d, r, n) + conv1x1_macs({block->upper}, n);
  EXPECT_EQ(module_macs(ham_context_options(h, /*num_classes=*/3), shape), batch * (lower + vq + literal));

  // NMF, K = 6: C₀ from Xᵀ D; per step Xᵀ D, Dᵀ D, C (DᵀD), X C, Cᵀ C, D (CᵀC); final Xᵀ D, Dᵀ D, C (DᵀD).
  h.type = HamType::kNMF;
  h.train_steps = h.eval_steps = 6;
  const int64_t step = product(n, d, r) + product(r, d, r) + product(n, r, r) + product(d, n, r) +
                       product(r, n, r) + product(d, r, r);
  const int64_t nmf = product(n, d, r) + 6 * step + product(n, d, r) + product(r, d, r) + product(n, r, r);
  EXPECT_EQ(module_macs(ham_context_options(h), {1, 16, 4, 4}), lower + nmf + factored);
}

TEST(BlockMacs, NoneCostsNothing) { EXPECT_EQ(module_macs(named("none"), {4, 64, 8, 8}), 0); }

}  // namespace
}  // namespace hamgan
