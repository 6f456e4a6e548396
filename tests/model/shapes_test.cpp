// G and D forward shapes for every resolution and every registered context
// block, checked against the channel plans (model_plan.h) that model-info prints.
#include <gtest/gtest.h>

#include <functional>
#include <tuple>

#include "gan/model/discriminator.h"
#include "gan/model/generator.h"
#include "gan/model/model_plan.h"
#include "tests/common/gan_test_util.h"
#include "modules/context_block.h"
#include "modules/ham_block.h"
#include "modules/spectral_norm.h"

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
// block is exactly zero (the block's values are checked in BlockGradients below).
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

// Sets each spectral-norm `u` to the exact top left singular vector of its weight. The power
// iteration treats u and v as constants for autograd (spectral_norm.h), so σ's gradient is
// uᵀ(dW)v; that is the derivative of the normalised weight only where u, v are the singular
// vectors, and then finite differences of the whole forward see the same derivative.
// Returns how many were set.
int64_t set_exact_singular_vectors(torch::nn::Module& m) {
  torch::NoGradGuard no_grad;
  int64_t n = 0;
  auto set = [&](const torch::Tensor& weight, torch::Tensor& u) {
    const auto svd = torch::linalg_svd(weight.reshape({weight.size(0), -1}), /*full_matrices=*/false);
    u.copy_(std::get<0>(svd).select(1, 0));
    ++n;
  };
  for (const auto& sub : m.modules()) {
    if (auto* conv = dynamic_cast<SNConv2dImpl*>(sub.get())) set(conv->weight, conv->u);
    if (auto* linear = dynamic_cast<SNLinearImpl*>(sub.get())) set(linear->weight, linear->u);
  }
  return n;
}

// The Hamburger's forward with the output of its K local NMF steps (bases D, codes C) held at
// their values for the current parameters and `seed`'s random bases: the one-step gradient
// (ham_decomposition.h) is exactly the derivative of this function, whose last code update
// C ⊙ (XᵀD) / (C DᵀD + ε) is the only step that sees the parameters.
std::function<torch::Tensor()> ham_with_frozen_steps(HamBlockImpl& ham, const torch::Tensor& x,
                                                     const torch::Tensor& labels, uint64_t seed) {
  const int64_t b = x.size(0), ch = ham.channels, n = x.size(2) * x.size(3);
  auto lower = [&ham, x, b, ch, n] { return torch::relu(ham.lower->forward(x)).reshape({b, ch, n}); };
  HamFactors steps;
  {
    torch::NoGradGuard no_grad;
    const auto so = ham.solver_options();
    const auto z = lower();
    torch::manual_seed(seed);
    steps = ham_local_steps(z, ham_random_bases(so.type, b, ch, ham.rank, z.options()), so);
  }
  return [&ham, x, labels, steps, lower] {
    const auto codes = nmf_update_codes(lower(), steps.bases, steps.codes);
    auto y = ham.upper->forward(ham_reconstruct({steps.bases, codes}).view(x.sizes()));
    if (ham.bn) y = ham.bn->forward(y, labels);
    return x + ham.sigma * y;
  };
}

// Each context block alone in float64, σ = 0.5: the gradient of Σ w ⊙ block(x) with respect to
// every parameter and the input against central finite differences, in training and eval mode
// and with class-conditional BN (the generator's Hamburger) or without.
class BlockGradients : public ::testing::TestWithParam<std::string> {};

TEST_P(BlockGradients, MatchFiniteDifferences) {
  for (const int64_t classes : {0, 5})
    for (const bool training : {true, false}) {
      SCOPED_TRACE("classes " + std::to_string(classes) + (training ? ", training" : ", eval"));
      torch::manual_seed(2);
      ContextOptions o;
      o.name = GetParam();
      o.num_classes = classes;
      const int64_t ch = o.name == "ylg" ? 64 : 16;  // ylg: 8 heads of C/64 channels
      const ContextBlock block = make_context_block(o, ch);
      if (block->parameters().empty()) {
        EXPECT_EQ(o.name, "none");  // the only block without parameters
        continue;
      }
      block->to(torch::kDouble);
      block->train(training);
      {
        torch::NoGradGuard no_grad;
        // σ = 0.5; the rest moved off their init (the CBN tables start at γ = 1, β = 0).
        for (auto& p : block->parameters()) p.dim() == 0 ? p.fill_(0.5) : p.add_(0.1 * torch::randn_like(p));
      }
      int64_t u_buffers = 0;
      for (const auto& buf : block->named_buffers())
        u_buffers += buf.key() == "u" || (buf.key().size() > 2 && buf.key().substr(buf.key().size() - 2) == ".u");
      ASSERT_EQ(set_exact_singular_vectors(*block), u_buffers) << "a spectral-norm layer type is not handled";
      // Forwards write the spectral-norm u and the BN moving statistics; each evaluation starts
      // from the same buffers (u is a fixed point of the power iteration up to rounding).
      std::vector<std::pair<torch::Tensor, torch::Tensor>> buffers;
      for (const auto& buf : block->buffers()) buffers.emplace_back(buf, buf.clone());
      auto restore = [&] {
        torch::NoGradGuard no_grad;
        for (auto& [live, saved] : buffers) live.copy_(saved);
      };

      const auto x = torch::randn({2, ch, 4, 6}, torch::kDouble).requires_grad_(true);  // non-square: no H/W mix-up
      const auto labels = torch::tensor({3, 1}, torch::kLong);
      const auto w = torch::randn({2, ch, 4, 6}, torch::kDouble);
      constexpr uint64_t kSeed = 9;  // the Hamburger's random bases
      auto forward = [&] {
        torch::manual_seed(kSeed);
        return block->forward(x, labels);
      };
      // The function whose finite differences the autograd gradient must match.
      std::function<torch::Tensor()> reference = forward;
      auto* ham = dynamic_cast<HamBlockImpl*>(block.get());
      if (ham) {
        const auto so = ham->solver_options();
        ASSERT_EQ(so.type, HamType::kNMF);  // the default, the one the frozen function follows
        ASSERT_EQ(so.gradient, HamGradient::kOneStep);
        restore();
        reference = ham_with_frozen_steps(*ham, x, labels, kSeed);
      }

      restore();
      const auto out = forward();
      (out * w).sum().backward();
      restore();
      {
        torch::NoGradGuard no_grad;
        const auto ref = reference();
        ASSERT_TRUE(torch::allclose(ref, out, 1e-12, 1e-12)) << (ref - out).abs().max().item<double>();
        ASSERT_GT((out - x).abs().max().item<double>(), 1e-3);  // the block contributes
      }

      auto checked = block->named_parameters();
      checked.insert("input", x);
      for (const auto& item : checked) {
        auto t = item.value();
        const auto grad = t.grad();
        ASSERT_TRUE(grad.defined()) << item.key();
        ASSERT_GT(grad.abs().max().item<double>(), 0) << item.key();
        // Three single entries and two dense random directions.
        std::vector<torch::Tensor> directions;
        const auto entries = torch::randperm(t.numel(), torch::kLong);
        for (int64_t i = 0; i < std::min<int64_t>(3, t.numel()); ++i) {
          auto v = torch::zeros_like(t);
          v.view(-1)[entries[i].item<int64_t>()] = 1.0;
          directions.push_back(v);
        }
        for (int i = 0; i < 2; ++i) directions.push_back(torch::randn_like(t));
        for (const auto& v : directions) {
          constexpr double h = 1e-6;
          const auto saved = t.detach().clone();
          auto value_at = [&](double step) {
            torch::NoGradGuard no_grad;
            t.copy_(saved + step * v);
            restore();
            const double value = (reference() * w).sum().item<double>();
            t.copy_(saved);
            return value;
          };
          const double numeric = (value_at(h) - value_at(-h)) / (2 * h);
          const double analytic = (grad * v).sum().item<double>();
          EXPECT_NEAR(analytic, numeric, 1e-6 * (1 + std::abs(numeric))) << item.key();
        }
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Blocks, BlockGradients, ::testing::ValuesIn(context_block_names()),
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
