// Every context block's gradients, parameters and input, against central finite
// differences in float64: in training and eval mode, with class-conditional BN or without.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "modules/context_block.h"
#include "modules/ham_block.h"
#include "modules/spectral_norm.h"

namespace hamgan {
namespace {

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

}  // namespace
}  // namespace hamgan
