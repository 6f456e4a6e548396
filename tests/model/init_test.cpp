// Initialisation schemes (docs/models.md: Glorot-uniform with TF's fans; orthogonal; N(0, 0.02)); biases zero.
#include <gtest/gtest.h>

#include <cmath>

#include "gan/model/discriminator.h"
#include "gan/model/generator.h"
#include "tests/common/gan_test_util.h"
#include "modules/spectral_norm.h"

namespace hamgan {
namespace {

TEST(Init, XavierUsesTfFansAndZeroBiases) {
  torch::manual_seed(10);
  ModelConfig c = test::small_config(32, "none", 16);
  Generator g(c);
  for (const auto& m : g->modules())
    if (auto* conv = dynamic_cast<SNConv2dImpl*>(m.get())) {
      const double k2 = std::pow(conv->options.kernel_size(), 2);
      const double bound = std::sqrt(6.0 / (k2 * (conv->options.in_channels() + conv->options.out_channels())));
      const auto w = conv->weight.detach().to(torch::kDouble);
      EXPECT_LE(w.abs().max().item<double>(), bound);
      if (w.numel() >= 4000) {
        EXPECT_NEAR(w.var().item<double>(), bound * bound / 3, 0.1 * bound * bound / 3);
      }
      EXPECT_EQ(conv->bias.abs().max().item<float>(), 0.0f);
    }
  // The linear layer: fan_in z_dim, fan_out 4·4·stem.
  auto* lin = dynamic_cast<SNLinearImpl*>(g->named_children()["linear"].get());
  ASSERT_NE(lin, nullptr);
  const double bound = std::sqrt(6.0 / (c.z_dim + lin->out_features));
  EXPECT_LE(lin->weight.abs().max().item<double>(), bound);
  EXPECT_NEAR(lin->weight.var().item<double>(), bound * bound / 3, 0.05 * bound * bound / 3);
}

TEST(Init, OrthogonalRowsAreOrthonormal) {
  torch::manual_seed(11);
  ModelConfig c = test::small_config(32, "none", 8);
  c.init = InitScheme::kOrthogonal;
  Discriminator d(c);
  int checked = 0;
  for (const auto& m : d->modules())
    if (auto* conv = dynamic_cast<SNConv2dImpl*>(m.get())) {
      const auto w = conv->weight.detach().to(torch::kDouble).reshape({conv->weight.size(0), -1});
      if (w.size(0) > w.size(1)) continue;  // tall matrices are orthonormal by columns instead
      EXPECT_TRUE(torch::allclose(torch::matmul(w, w.t()), torch::eye(w.size(0), torch::kDouble), 1e-5, 1e-5));
      EXPECT_EQ(conv->bias.abs().max().item<float>(), 0.0f);
      ++checked;
    }
  EXPECT_GT(checked, 3);
}

TEST(Init, N02HasStandardDeviation002) {
  torch::manual_seed(12);
  ModelConfig c = test::small_config(32, "none", 16);
  c.init = InitScheme::kN02;
  Generator g(c);
  auto* lin = dynamic_cast<SNLinearImpl*>(g->named_children()["linear"].get());
  ASSERT_NE(lin, nullptr);
  EXPECT_NEAR(lin->weight.std().item<double>(), 0.02, 0.001);
  EXPECT_NEAR(lin->weight.mean().item<double>(), 0.0, 0.001);
}

}  // namespace
}  // namespace hamgan
