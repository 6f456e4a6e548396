// Spectral norm as used by G and D: after enough power iterations the
// normalised weight's largest singular value, from an independent SVD in
// double precision, is min(1, σ(W)) for the W / max(1, σ) layers.
#include <gtest/gtest.h>

#include "gan/model/generator.h"
#include "tests/common/gan_test_util.h"
#include "modules/spectral_norm.h"

namespace hamgan {
namespace {

double sigma_max(const torch::Tensor& w) {
  return torch::linalg_svdvals(w.detach().to(torch::kDouble).reshape({w.size(0), -1})).max().item<double>();
}

TEST(SpectralNorm, LargestSingularValueBecomesOne) {
  torch::manual_seed(8);
  SNConv2d conv(SNConv2dOptions(8, 16, 3));
  SNLinear linear(24, 10);
  SNEmbedding embed(7, 12);
  {
    torch::NoGradGuard no_grad;
    conv->weight.mul_(5);
    linear->weight.mul_(5);
    embed->weight.mul_(5);
  }
  ASSERT_GT(sigma_max(conv->weight), 1.5);
  ASSERT_GT(sigma_max(linear->weight), 1.5);
  ASSERT_GT(sigma_max(embed->weight), 1.5);
  torch::NoGradGuard no_grad;
  for (int i = 0; i < 300; ++i) {  // training mode: one power iteration per forward
    conv->forward(torch::zeros({1, 8, 3, 3}));
    linear->forward(torch::zeros({1, 24}));
    embed->forward(torch::arange(7));
  }
  conv->eval(), linear->eval(), embed->eval();
  EXPECT_NEAR(sigma_max(conv->normalized_weight()), 1.0, 1e-3);
  // Linear: f(I) − b = (W / σ)ᵀ. Embedding: looking up every class gives the whole table.
  EXPECT_NEAR(sigma_max((linear->forward(torch::eye(24)) - linear->bias).t()), 1.0, 1e-3);
  EXPECT_NEAR(sigma_max(embed->forward(torch::arange(7))), 1.0, 1e-3);
}

TEST(SpectralNorm, EveryLayerOfTheGeneratorIsClampedAfterTraining) {
  // Through G's own forwards: every SN conv ends with σ_max(W_sn) ≈ min(1, σ_max(W)).
  torch::manual_seed(9);
  ModelConfig c = test::small_config(32, "none", 4);
  Generator g(c);
  {
    torch::NoGradGuard no_grad;
    for (int i = 0; i < 150; ++i) g->forward(torch::randn({2, c.z_dim}), torch::tensor({0, 1}, torch::kLong));
  }
  g->eval();
  torch::NoGradGuard no_grad;
  int checked = 0;
  for (const auto& m : g->modules())
    if (auto* conv = dynamic_cast<SNConv2dImpl*>(m.get())) {
      const double raw = sigma_max(conv->weight);
      EXPECT_NEAR(sigma_max(conv->normalized_weight()), std::min(1.0, raw), 2e-2) << "raw σ " << raw;
      ++checked;
    }
  EXPECT_EQ(checked, 3 * 3 + 1);  // three blocks × (conv1, conv2, shortcut) + conv_out
}

}  // namespace
}  // namespace hamgan
