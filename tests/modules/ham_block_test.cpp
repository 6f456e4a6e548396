// The Hamburger block: identity at init (σ = 0), the factored forward against the
// literal layer order, online bases updated exactly by the reference rule, the parameter
// count; its options are tested in ham_options_test.cpp.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <vector>

#include "modules/ham_block.h"
#include "tests/modules/module_test_util.h"

namespace hamgan {
namespace {

using test::seeded;
using test::ham_options;

class HamBlockTest : public ::testing::TestWithParam<HamType> {};

TEST_P(HamBlockTest, IdentityAtInit) {
  for (int64_t classes : {0, 5}) {
    HamBlock block(ham_options(GetParam()), 16, classes);
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
    HamBlock block(ham_options(GetParam()), 16, classes);
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

// The NHWC path (one matmul per bread on the (B, n, C) rows, the result built in
// NHWC) against the default layout, values and gradients, in double precision.
TEST_P(HamBlockTest, ChannelsLastInputEqualsTheDefaultLayout) {
  for (int64_t classes : {0, 5}) {
    HamBlock block(ham_options(GetParam()), 16, classes);
    block->to(torch::kDouble);
    block->eval();  // fixed spectral-norm u
    {
      torch::NoGradGuard ng;
      block->sigma.fill_(0.7);
    }
    const auto labels = torch::tensor({3, 1}, torch::kLong);
    const auto x0 = torch::randn({2, 16, 3, 4}, seeded(8)).to(torch::kDouble);
    const auto w = torch::randn({2, 16, 3, 4}, seeded(9)).to(torch::kDouble);
    std::vector<torch::Tensor> results;
    for (bool nhwc : {false, true}) {
      block->zero_grad();
      auto x = (nhwc ? x0.contiguous(torch::MemoryFormat::ChannelsLast) : x0.clone()).requires_grad_(true);
      block->set_generator(seeded(10));
      auto y = block->forward(x, labels);
      if (nhwc) {
        EXPECT_TRUE(y.is_contiguous(torch::MemoryFormat::ChannelsLast)) << "classes " << classes;
      }
      (y * w).sum().backward();
      results.insert(results.end(), {y.contiguous(), x.grad().contiguous(), block->sigma.grad().clone(),
                                     block->lower->weight.grad().contiguous(), block->upper->weight.grad().contiguous()});
    }
    for (size_t i = 0; i < 5; ++i)
      EXPECT_TRUE(torch::allclose(results[5 + i], results[i], 1e-10, 1e-12))
          << "classes " << classes << " tensor " << i << ": " << (results[5 + i] - results[i]).abs().max().item<double>();
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

// On the CPU in float32 the NMF block runs ReLU, the K steps and the final code update as one fused
// node; the same block in double runs the ATen ops. Values and all gradients agree, in both layouts.
TEST(HamBlock, FusedCpuNodeAgreesWithTheAtenPath) {
  for (int64_t classes : {0, 5}) {
    for (bool nhwc : {false, true}) {
      std::vector<std::vector<torch::Tensor>> results;
      for (auto dtype : {torch::kFloat, torch::kDouble}) {
        // Online bases: the same starting D in both precisions (fresh random draws differ by dtype).
        auto o = ham_options(HamType::kNMF);
        o.init = HamInit::kOnline;
        torch::manual_seed(4);  // the same weights and bases for both
        HamBlock block(o, 32, classes);
        for (auto& p : block->parameters()) {
          torch::NoGradGuard ng;
          p.copy_(torch::rand(p.sizes()) - 0.3);
        }
        block->to(dtype);
        block->eval();  // fixed spectral-norm u
        const auto labels = torch::tensor({3, 1, 0}, torch::kLong);
        const auto x0 = torch::randn({3, 32, 8, 8}, seeded(12)).to(dtype);
        const auto w = torch::randn({3, 32, 8, 8}, seeded(13)).to(dtype);
        auto x = (nhwc ? x0.contiguous(torch::MemoryFormat::ChannelsLast) : x0.clone()).requires_grad_(true);
        auto y = block->forward(x, labels);
        (y * w).sum().backward();
        results.push_back({y, x.grad(), block->sigma.grad(), block->lower->weight.grad(), block->upper->weight.grad()});
      }
      for (size_t i = 0; i < results[0].size(); ++i) {
        const auto got = results[0][i].to(torch::kDouble), want = results[1][i];
        const double err = ((got - want).norm() / want.norm()).item<double>();
        EXPECT_LT(err, 1e-4) << "classes " << classes << (nhwc ? " nhwc" : " nchw") << " tensor " << i;
      }
    }
  }
}

TEST(HamBlock, ParameterCountMatchesReference) {
  // docs/models.md, "Parameter counts": G (C=256, 1000 classes) 643,073; D (C=128) 32,769.
  auto count = [](const HamBlock& b) {
    int64_t n = 0;
    for (const auto& p : b->parameters()) n += p.numel();
    return n;
  };
  EXPECT_EQ(count(HamBlock(ham_options(HamType::kNMF), 256, 1000)), 643073);
  EXPECT_EQ(count(HamBlock(ham_options(HamType::kNMF), 128)), 32769);
  EXPECT_EQ(HamBlock(ham_options(HamType::kNMF), 256)->rank, 32);
}

}  // namespace
}  // namespace hamgan
