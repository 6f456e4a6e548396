// Discriminator projection head: logit = ψ(h) + ⟨E[y], h⟩ (docs/models.md, "Layers"),
// with both heads spectrally normalised as W / max(1, σ).
#include <gtest/gtest.h>

#include "gan/model/discriminator.h"
#include "tests/common/gan_test_util.h"

namespace hamgan {
namespace {

double largest_singular_value(const torch::Tensor& w) {
  return torch::linalg_svdvals(w.detach().to(torch::kDouble).reshape({w.size(0), -1})).max().item<double>();
}

TEST(Discriminator, ProjectionEqualsInnerProductWithTheEmbedding) {
  torch::manual_seed(5);
  ModelConfig c = test::small_config(32, "none");
  Discriminator d(c);
  {
    torch::NoGradGuard no_grad;
    d->embed()->weight.mul_(4);  // σ > 1 so the normalisation matters
    d->linear()->weight.mul_(4);
    // Converge the embedding's power iteration; its σ estimate is then σ_max.
    d->train();
    for (int i = 0; i < 300; ++i) d->embed()->forward(torch::arange(c.num_classes));
  }
  d->eval();
  torch::NoGradGuard no_grad;
  const auto x = torch::rand({4, 3, 32, 32}) * 2 - 1;
  const auto y = torch::tensor({0, 2, 4, 2}, torch::kLong);
  const auto logits = d->forward(x, y).to(torch::kDouble);
  const auto h = d->features(x).to(torch::kDouble);  // (N, C)

  const auto we = d->embed()->weight.detach().to(torch::kDouble);      // (classes, C)
  const auto wl = d->linear()->weight.detach().to(torch::kDouble);     // (1, C)
  const auto bl = d->linear()->bias.detach().to(torch::kDouble);       // (1)
  const double se = largest_singular_value(we), sl = largest_singular_value(wl);
  ASSERT_GT(se, 1.0);
  ASSERT_GT(sl, 1.0);
  const auto e = we.index_select(0, y) / std::max(1.0, se);  // E[y], (N, C)
  const auto projection = (e * h).sum(1);
  const auto psi = torch::matmul(h, wl.t()).squeeze(1) / std::max(1.0, sl) + bl;
  EXPECT_TRUE(torch::allclose(logits, psi + projection, 1e-4, 1e-3))
      << logits << "\n" << psi + projection;
  // Swapping a label changes the logit by exactly the projection difference.
  const auto y2 = torch::tensor({1, 2, 4, 2}, torch::kLong);
  const auto delta = d->forward(x, y2).to(torch::kDouble) - logits;
  const double expected = ((we[1] - we[0]) / std::max(1.0, se) * h[0]).sum().item<double>();
  EXPECT_NEAR(delta[0].item<double>(), expected, 1e-3 * std::max(1.0, std::abs(expected)));
  EXPECT_NEAR(delta.slice(0, 1).abs().max().item<double>(), 0.0, 1e-6);
}

TEST(Discriminator, FeaturesAreTheReluSumOverTheLastMap) {
  // Running the blocks by hand: h = Σ_{H,W} ReLU(last map), a sum, not a mean, as TF-GAN.
  torch::manual_seed(6);
  const ModelConfig c = test::small_config(32, "none");
  Discriminator d(c);
  d->eval();
  torch::NoGradGuard no_grad;
  const auto x = torch::rand({2, 3, 32, 32}) * 2 - 1;
  auto children = d->named_children();
  auto t = x;
  for (int i = 1; children.contains("block" + std::to_string(i)); ++i)
    t = std::dynamic_pointer_cast<DBlockImpl>(children["block" + std::to_string(i)])->forward(t);
  ASSERT_EQ(t.size(2), 4);
  const auto expected = torch::relu(t).to(torch::kDouble).sum({2, 3});
  EXPECT_TRUE(torch::allclose(d->features(x).to(torch::kDouble), expected, 1e-5, 1e-4));
}

}  // namespace
}  // namespace hamgan
