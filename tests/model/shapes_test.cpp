// G and D forward shapes for every resolution and every registered context
// block, checked against the channel plans (model_plan.h) that model-info prints.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "gan/model/discriminator.h"
#include "gan/model/generator.h"
#include "gan/model/model_plan.h"
#include "tests/common/gan_test_util.h"
#include "modules/context_block.h"

namespace hamgan {
namespace {

using Case = std::tuple<int64_t, std::string>;  // resolution, block name

std::vector<int64_t> chw(int64_t n, int64_t c, int64_t side) { return {n, c, side, side}; }

class Shapes : public ::testing::TestWithParam<Case> {};

TEST_P(Shapes, GeneratorAndDiscriminatorFollowThePlan) {
  const auto [resolution, block] = GetParam();
  torch::manual_seed(0);
  const ModelConfig c = test::buildable_config(resolution, block);
  const int64_t n = 2, side = c.context_side();
  Generator g(c);
  Discriminator d(c);
  torch::NoGradGuard no_grad;
  const auto z = torch::randn({n, c.z_dim});
  const auto y = torch::tensor({1, 4}, torch::kLong);

  std::vector<std::vector<int64_t>> gs;
  const auto images = g->forward_traced(z, y, &gs);
  EXPECT_EQ(images.sizes().vec(), chw(n, 3, resolution));
  EXPECT_LE(images.abs().max().item<float>(), 1.0f);  // tanh
  EXPECT_TRUE(torch::isfinite(images).all().item<bool>());
  std::vector<std::vector<int64_t>> expect_g{chw(n, generator_stem_channels(c), 4)};
  for (const auto& b : generator_plan(c)) {
    expect_g.push_back(chw(n, b.out_ch, b.out_side));
    if (b.out_side == side) expect_g.push_back(chw(n, b.out_ch, b.out_side));  // context keeps the shape
  }
  EXPECT_EQ(gs, expect_g);

  std::vector<std::vector<int64_t>> ds;
  const auto h = d->features(images, &ds);
  std::vector<std::vector<int64_t>> expect_d;
  bool placed = false;
  for (const auto& b : discriminator_plan(c)) {
    expect_d.push_back(chw(n, b.out_ch, b.out_side));
    if (b.out_side == side && !placed) expect_d.push_back(chw(n, b.out_ch, b.out_side)), placed = true;
  }
  EXPECT_EQ(ds, expect_d);
  EXPECT_EQ(h.sizes().vec(), (std::vector<int64_t>{n, discriminator_plan(c).back().out_ch}));
  const auto logits = d->forward(images, y);
  EXPECT_EQ(logits.sizes().vec(), std::vector<int64_t>{n});
  EXPECT_TRUE(torch::isfinite(logits).all().item<bool>());
}

std::vector<Case> all_cases() {
  std::vector<Case> v;
  for (int64_t r : {32, 64, 128})
    for (const auto& b : context_block_names()) v.emplace_back(r, b);
  return v;
}

INSTANTIATE_TEST_SUITE_P(ResolutionsAndBlocks, Shapes, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) {
                           return std::get<1>(info.param) + "_" + std::to_string(std::get<0>(info.param));
                         });

// Every parameter of G and D receives a finite, non-zero gradient in training mode. The
// context block's gain σ is set to 0.5 first: at its initial 0 every gradient inside the
// block is exactly zero (the block's values are checked in block_gradients_test.cpp).
class Gradients : public ::testing::TestWithParam<std::string> {};

TEST_P(Gradients, ReachEveryParameter) {
  torch::manual_seed(1);
  const ModelConfig c = test::buildable_config(32, GetParam());
  Generator g(c);
  Discriminator d(c);
  for (auto* m : {static_cast<torch::nn::Module*>(g.get()), static_cast<torch::nn::Module*>(d.get())}) {
    torch::NoGradGuard no_grad;
    const auto context = m->named_children()["context"];
    for (auto& p : context->parameters())
      if (p.dim() == 0) p.fill_(0.5);
  }
  const auto y = torch::tensor({0, 3, 3}, torch::kLong);
  const auto images = g->forward(torch::randn({3, c.z_dim}), y);
  d->forward(images, y).sum().backward();
  for (auto* m : {static_cast<torch::nn::Module*>(g.get()), static_cast<torch::nn::Module*>(d.get())})
    for (const auto& p : m->named_parameters()) {
      ASSERT_TRUE(p.value().grad().defined()) << p.key();
      EXPECT_TRUE(torch::isfinite(p.value().grad()).all().item<bool>()) << p.key();
      EXPECT_GT(p.value().grad().abs().max().item<float>(), 0.0f) << p.key();
    }
}

INSTANTIATE_TEST_SUITE_P(Blocks, Gradients, ::testing::ValuesIn(context_block_names()),
                         [](const auto& info) { return info.param; });

TEST(Shapes, ContextSubmoduleIsNamedContext) {
  const ModelConfig c = test::small_config(32, "none");
  Generator g(c);
  Discriminator d(c);
  EXPECT_TRUE(g->named_children().contains("context"));
  EXPECT_TRUE(d->named_children().contains("context"));
}

TEST(Shapes, BlockErrorsNameNetworkPositionAndWidth) {
  // ylg needs 8 heads of C/64 channels; G's 16×16 map at g_ch 16 has 32 channels.
  ModelConfig c = test::small_config(32, "none", 16);
  c.g_block.name = "ylg";
  try {
    Generator g(c);
    FAIL() << "expected an error for ylg with 32 channels";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("g_block ylg at 16x16 with 32 channels"), std::string::npos) << msg;
    EXPECT_NE(msg.find("g_ch"), std::string::npos) << msg;
  }
}

TEST(Shapes, BadInputsThrowModelError) {
  const ModelConfig c = test::small_config(32, "none");
  Generator g(c);
  Discriminator d(c);
  EXPECT_THROW(g->forward(torch::randn({2, c.z_dim + 1}), torch::zeros({2}, torch::kLong)), ModelError);
  EXPECT_THROW(g->forward(torch::randn({2, c.z_dim}), torch::zeros({3}, torch::kLong)), ModelError);
  EXPECT_THROW(g->forward(torch::randn({2, c.z_dim}), torch::zeros({2})), ModelError);  // float labels
  EXPECT_THROW(d->forward(torch::randn({2, 3, 64, 64}), torch::zeros({2}, torch::kLong)), ModelError);
  EXPECT_THROW(d->forward(torch::randn({2, 1, 32, 32}), torch::zeros({2}, torch::kLong)), ModelError);
  EXPECT_THROW(d->forward(torch::randn({2, 3, 32, 32}), torch::Tensor()), ModelError);
}

}  // namespace
}  // namespace hamgan
