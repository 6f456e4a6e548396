// The Hamburger block: identity at init (σ = 0), the factored forward against the
// literal layer order, online bases updated exactly by the reference rule, option checks.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "modules/ham_block.h"

namespace hamgan {
namespace {

torch::Generator seeded(uint64_t seed) { return at::make_generator<at::CPUGeneratorImpl>(seed); }

ContextOptions ham_options(HamType type, int64_t num_classes = 0) {
  ContextOptions o;
  o.name = "ham";
  o.ham_type = type;
  o.num_classes = num_classes;
  return o;
}

class HamBlockTest : public ::testing::TestWithParam<HamType> {};

TEST_P(HamBlockTest, IdentityAtInit) {
  for (int64_t classes : {0, 5}) {
    HamBlock block(ham_options(GetParam(), classes), 16);
    EXPECT_EQ(block->rank, 2);  // d / 8
    EXPECT_EQ(block->sigma.item<float>(), 0.0f);
    auto x = torch::randn({3, 16, 4, 5}, seeded(1));
    auto labels = torch::tensor({0, 4, 2}, torch::kLong);
    for (bool train : {true, false}) {
      block->train(train);
      auto y = block->forward(x, labels);
      EXPECT_EQ(y.sizes(), x.sizes());
      EXPECT_TRUE(torch::equal(y, x)) << "classes " << classes << " train " << train;
    }
  }
}

TEST_P(HamBlockTest, FactoredForwardEqualsLayerOrder) {
  for (int64_t classes : {0, 5}) {
    HamBlock block(ham_options(GetParam(), classes), 16);
    {
      torch::NoGradGuard ng;
      block->sigma.fill_(0.7);
    }
    block->eval();  // spectral norm's u stays fixed, so both calls see the same weights
    auto x = torch::randn({2, 16, 4, 4}, seeded(2));
    auto labels = torch::tensor({3, 1}, torch::kLong);
    block->set_generator(seeded(3));
    auto fast = block->forward(x, labels);
    block->set_generator(seeded(3));
    auto reference = block->forward_reference(x, labels);
    EXPECT_TRUE(torch::allclose(fast, reference, 1e-4, 1e-5)) << (fast - reference).abs().max().item<float>();
    EXPECT_GT((fast - x).abs().max().item<float>(), 1e-3);  // the ham contributes
    // Gradients reach x, σ and both breads in training.
    block->train();
    auto xg = x.clone().requires_grad_(true);
    block->forward(xg, labels).square().sum().backward();
    EXPECT_GT(xg.grad().abs().sum().item<float>(), 0);
    EXPECT_GT(block->sigma.grad().abs().item<float>(), 0);
    EXPECT_GT(block->lower->weight.grad().abs().sum().item<float>(), 0);
    EXPECT_GT(block->upper->weight.grad().abs().sum().item<float>(), 0);
  }
}

TEST_P(HamBlockTest, InputGradientMatchesPlainComposition) {
  // The block's fused paths (factored upper bread; for NMF the ReLU + final-step node) against
  // the same layers composed from plain ops, in double precision.
  for (auto grad : {HamGradient::kOneStep, HamGradient::kBPTT}) {
    auto o = ham_options(GetParam());
    o.gradient = grad;
    HamBlock block(o, 16);
    block->to(torch::kDouble);
    block->eval();  // fixed spectral-norm u; autograd still records
    {
      torch::NoGradGuard ng;
      block->sigma.fill_(0.7);
    }
    auto x0 = torch::randn({2, 16, 3, 4}, seeded(5)).to(torch::kDouble);
    auto w = torch::randn({2, 16, 3, 4}, seeded(6)).to(torch::kDouble);
    auto x1 = x0.clone().requires_grad_(true);
    block->set_generator(seeded(7));
    auto g1 = torch::autograd::grad({(block->forward(x1) * w).sum()}, {x1})[0];

    auto x2 = x0.clone().requires_grad_(true);
    auto z = block->lower->forward(x2).reshape({2, 16, 12});
    if (GetParam() == HamType::kNMF) z = torch::relu(z);
    auto bases0 = ham_random_bases(GetParam(), 2, 16, 2, torch::kDouble, seeded(7));
    auto rec = ham_reconstruct(ham_decompose(z, bases0, block->solver_options())).reshape({2, 16, 3, 4});
    auto y2 = x2 + block->sigma * block->upper->forward(rec);
    auto g2 = torch::autograd::grad({(y2 * w).sum()}, {x2})[0];
    EXPECT_TRUE(torch::allclose(g1, g2, 1e-9, 1e-11)) << to_string(grad) << " " << (g1 - g2).abs().max().item<double>();
  }
}

TEST_P(HamBlockTest, OnlineBasesUpdateOnlyInEval) {
  auto o = ham_options(GetParam());
  o.init = HamInit::kOnline;
  HamBlock block(o, 16);
  ASSERT_TRUE(block->online_bases.defined());
  auto x = torch::randn({2, 16, 3, 3}, seeded(4));
  auto before = block->online_bases.clone();
  block->train();
  block->forward(x);
  EXPECT_TRUE(torch::equal(block->online_bases, before));  // training leaves the buffer alone

  block->eval();
  torch::Tensor expected;
  {
    // bases ← normalise_d(bases + 0.9 (mean_B(D_K) − bases)), D_K the bases after the eval steps.
    torch::NoGradGuard ng;
    auto z = block->lower->forward(x);
    if (GetParam() == HamType::kNMF) z = torch::relu(z);
    auto f = ham_decompose(z.reshape({2, 16, 9}), before.expand({2, 16, 2}).contiguous(), block->solver_options());
    auto e = before + 0.9 * (f.bases.mean(0, true) - before);
    expected = e / e.norm(2, {1}, true);
  }
  block->forward(x);
  EXPECT_TRUE(torch::allclose(block->online_bases, expected, 1e-5, 1e-6));
  EXPECT_FALSE(torch::allclose(block->online_bases, before));
}

INSTANTIATE_TEST_SUITE_P(Types, HamBlockTest, ::testing::Values(HamType::kNMF, HamType::kVQ, HamType::kCD),
                         [](const auto& info) { return to_string(info.param); });

TEST(HamBlock, StepsFollowMode) {
  auto o = ham_options(HamType::kNMF);
  o.train_steps = 3;
  o.eval_steps = 7;
  o.gradient = HamGradient::kBPTT;
  HamBlock block(o, 16);
  EXPECT_EQ(block->solver_options().steps, 3);
  EXPECT_EQ(block->solver_options().gradient, HamGradient::kBPTT);
  EXPECT_DOUBLE_EQ(block->solver_options().temperature, 1.0);
  block->eval();
  EXPECT_EQ(block->solver_options().steps, 7);
  EXPECT_DOUBLE_EQ(HamBlock(ham_options(HamType::kCD), 16)->temperature, 0.01);  // inv_t 100
}

TEST(HamBlock, ParameterCountMatchesReference) {
  // architecture.md §3.7: G (C=256, 1000 classes) 643,073; D (C=128) 32,769.
  auto count = [](const HamBlock& b) {
    int64_t n = 0;
    for (const auto& p : b->parameters()) n += p.numel();
    return n;
  };
  EXPECT_EQ(count(HamBlock(ham_options(HamType::kNMF, 1000), 256)), 643073);
  EXPECT_EQ(count(HamBlock(ham_options(HamType::kNMF), 128)), 32769);
  EXPECT_EQ(HamBlock(ham_options(HamType::kNMF), 256)->rank, 32);
}

TEST(HamBlock, RejectsBadOptionsAndInputs) {
  auto o = ham_options(HamType::kNMF);
  o.rank = 17;
  EXPECT_THROW(HamBlock(o, 16), ConfigError);
  o.rank = 0;
  o.beta = 0;
  EXPECT_THROW(HamBlock(o, 16), ConfigError);
  HamBlock block(ham_options(HamType::kNMF), 16);
  EXPECT_THROW(block->forward(torch::randn({1, 8, 4, 4})), ModelError);
  HamBlock conditional(ham_options(HamType::kNMF, 3), 16);
  EXPECT_THROW(conditional->forward(torch::randn({2, 16, 4, 4})), ModelError);  // labels missing
}

}  // namespace
}  // namespace hamgan
