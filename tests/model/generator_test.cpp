// Generator behaviour: eval determinism and class dependence through the
// conditional-BN tables (the formula itself: tests/modules/conditional_bn_test.cpp).
#include <gtest/gtest.h>

#include "gan/model/generator.h"
#include "tests/common/gan_test_util.h"
#include "modules/conditional_bn.h"
#include "modules/ham_block.h"

namespace hamgan {
namespace {

class EvalDeterminism : public ::testing::TestWithParam<std::string> {};

TEST_P(EvalDeterminism, FixedZAndYGiveTheSameImages) {
  const std::string block = GetParam();
  torch::manual_seed(2);
  const ModelConfig c = test::buildable_config(32, block);
  Generator g(c);
  const auto z = torch::randn({4, c.z_dim});
  const auto y = torch::tensor({0, 1, 2, 3}, torch::kLong);
  {
    torch::NoGradGuard no_grad;
    for (int i = 0; i < 3; ++i) g->forward(torch::randn({4, c.z_dim}), y);  // moves BN stats and SN u
  }
  g->eval();
  torch::NoGradGuard no_grad;
  // The reference Hamburger samples fresh random bases on every forward, eval
  // included (docs/ham.md), so with ham it is deterministic only for a fixed RNG state.
  const bool random_bases = block == "ham" && parse_ham_options(c.g_context()).init == HamInit::kRandom;
  if (random_bases) torch::manual_seed(7);
  const auto a = g->forward(z, y);
  if (random_bases) torch::manual_seed(7);
  const auto b = g->forward(z, y);
  EXPECT_TRUE(torch::equal(a, b));
  if (!random_bases) {
    // Eval BN uses moving statistics: a sample's image does not depend on its batch.
    const auto single = g->forward(z.slice(0, 2, 3), y.slice(0, 2, 3));
    EXPECT_TRUE(torch::allclose(single[0], a[2], 1e-5, 1e-5));
  }
  // Changing z changes the image (the check can fail).
  EXPECT_FALSE(torch::allclose(g->forward(z + 1, y), a));
}

INSTANTIATE_TEST_SUITE_P(Blocks, EvalDeterminism, ::testing::ValuesIn(context_block_names()),
                         [](const auto& info) { return info.param; });

// Sets every class-conditional BN table in `g` with `fill(table)`.
template <class F>
void fill_cbn_tables(Generator& g, F fill) {
  torch::NoGradGuard no_grad;
  for (const auto& m : g->modules())
    if (auto* bn = dynamic_cast<ConditionalBatchNormImpl*>(m.get()); bn && bn->options.num_classes() > 0) {
      fill(bn->gain);
      fill(bn->bias);
    }
}

TEST(Generator, ClassEntersThroughTheConditionalBNTables) {
  torch::manual_seed(3);
  const ModelConfig c = test::small_config(32, "none");
  Generator g(c);
  g->eval();
  torch::NoGradGuard no_grad;
  const auto z = torch::randn({1, c.z_dim}).repeat({2, 1});
  const auto y = torch::tensor({0, 4}, torch::kLong);
  // Initial tables (γ = 1, β = 0 for every class) make the class irrelevant.
  auto out = g->forward(z, y);
  EXPECT_TRUE(torch::allclose(out[0], out[1], 0, 0));
  // Distinct per-class rows make the two classes' images differ.
  fill_cbn_tables(g, [](torch::Tensor& t) { t.copy_(1 + 0.5 * torch::randn_like(t)); });
  out = g->forward(z, y);
  EXPECT_GT((out[0] - out[1]).abs().max().item<float>(), 1e-3f);
  // Copying class 0's row into class 4 makes them equal again.
  fill_cbn_tables(g, [](torch::Tensor& t) { t[4].copy_(t[0]); });
  out = g->forward(z, y);
  EXPECT_TRUE(torch::allclose(out[0], out[1], 0, 0));
}

}  // namespace
}  // namespace hamgan
