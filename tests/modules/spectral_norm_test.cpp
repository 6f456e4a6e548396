// Spectral normalisation (docs/modules.md, "Spectral normalisation") against double-precision SVD.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sstream>

#include "modules/spectral_norm.h"

using namespace hamgan;

namespace {

double top_singular_value(const torch::Tensor& w) {
  return torch::linalg_svdvals(w.reshape({w.size(0), -1}).to(torch::kDouble))[0].item<double>();
}

}  // namespace

TEST(SpectralNorm, ExactModeConvergesToUnitSpectralNorm) {
  torch::manual_seed(0);
  auto w = torch::randn({12, 20}, torch::kDouble) * 3.0;
  auto u = torch::randn({12}, torch::kDouble);
  const double sigma = top_singular_value(w);
  torch::Tensor wn;
  for (int i = 0; i < 200; ++i) wn = spectral_normalize(w, u, SNMode::kExact, /*update=*/true);
  EXPECT_NEAR(top_singular_value(wn), 1.0, 1e-8);
  EXPECT_TRUE(torch::allclose(wn, w / sigma, 1e-9, 1e-12));
}

TEST(SpectralNorm, ConvWeightUsesOutByRestMatrix) {
  torch::manual_seed(1);
  auto w = torch::randn({6, 4, 3, 3}, torch::kDouble);
  auto u = torch::randn({6}, torch::kDouble);
  torch::Tensor wn;
  for (int i = 0; i < 200; ++i) wn = spectral_normalize(w, u, SNMode::kExact, true);
  EXPECT_EQ(wn.sizes(), w.sizes());
  EXPECT_NEAR(top_singular_value(wn), 1.0, 1e-8);
}

TEST(SpectralNorm, ClampModeOnlyShrinks) {
  torch::manual_seed(2);
  auto base = torch::randn({10, 7}, torch::kDouble);
  base = base / top_singular_value(base);  // σ = 1 exactly
  auto u = torch::randn({10}, torch::kDouble);
  // σ = 0.5 < 1: W / max(1, σ) = W, whereas exact mode would double it.
  auto small = base * 0.5;
  torch::Tensor clamp, exact;
  for (int i = 0; i < 200; ++i) clamp = spectral_normalize(small, u, SNMode::kClamp, true);
  exact = spectral_normalize(small, u, SNMode::kExact, false);
  EXPECT_TRUE(torch::allclose(clamp, small, 0, 1e-15));
  EXPECT_TRUE(torch::allclose(exact, base, 1e-9, 1e-12));
  // σ = 4 > 1: both modes divide by σ.
  auto big = base * 4.0;
  for (int i = 0; i < 200; ++i) clamp = spectral_normalize(big, u, SNMode::kClamp, true);
  EXPECT_TRUE(torch::allclose(clamp, base, 1e-9, 1e-12));
}

TEST(SpectralNorm, OnePowerIterationPerCallMatchesFormula) {
  torch::manual_seed(3);
  auto w = torch::randn({5, 8}, torch::kDouble);
  auto u0 = torch::randn({5}, torch::kDouble);
  auto u = u0.clone();
  auto wn = spectral_normalize(w, u, SNMode::kExact, true);
  auto v = w.t().mv(u0);
  v = v / v.norm();
  auto u1 = w.mv(v);
  u1 = u1 / u1.norm();
  const double sigma = u1.dot(w.mv(v)).item<double>();
  EXPECT_TRUE(torch::allclose(u, u1, 1e-12, 1e-14));
  EXPECT_TRUE(torch::allclose(wn, w / sigma, 1e-12, 1e-14));
}

TEST(SpectralNorm, GradientTreatsUAndVAsConstants) {
  // d/dW Σ R∘(W/σ) with σ = uᵀWv and u, v fixed: R/σ − (Σ W∘R / σ²) u vᵀ.
  torch::manual_seed(4);
  auto w = torch::randn({4, 6}, torch::kDouble).requires_grad_(true);
  auto u = torch::randn({4}, torch::kDouble);
  auto u0 = u.clone();
  auto r = torch::randn({4, 6}, torch::kDouble);
  (spectral_normalize(w, u, SNMode::kExact, false) * r).sum().backward();
  EXPECT_TRUE(torch::equal(u, u0));  // update=false leaves u alone
  auto wd = w.detach();
  auto v = wd.t().mv(u0);
  v = v / v.norm();
  auto un = wd.mv(v);
  un = un / un.norm();
  const auto sigma = un.dot(wd.mv(v));
  const auto expected = r / sigma - (wd * r).sum() / (sigma * sigma) * torch::outer(un, v);
  EXPECT_TRUE(torch::allclose(w.grad(), expected, 1e-10, 1e-12));
}

TEST(SpectralNorm, UFrozenInEvalAndUpdatedInTraining) {
  torch::manual_seed(5);
  SNConv2d conv(SNConv2dOptions(3, 5, 3).mode(SNMode::kExact));
  auto x = torch::randn({2, 3, 6, 6});
  auto u0 = conv->u.clone();
  conv->eval();
  auto y1 = conv->forward(x);
  auto y2 = conv->forward(x);
  EXPECT_TRUE(torch::equal(conv->u, u0));
  EXPECT_TRUE(torch::equal(y1, y2));
  conv->train();
  conv->forward(x);
  EXPECT_FALSE(torch::equal(conv->u, u0));
}

TEST(SpectralNorm, UPersistsAsBufferThroughSaveLoad) {
  torch::manual_seed(6);
  SNLinear a(7, 4, true, SNMode::kClamp);
  bool has_u = false;
  for (const auto& b : a->named_buffers())
    if (b.key() == "u") has_u = true;
  ASSERT_TRUE(has_u);
  for (int i = 0; i < 5; ++i) a->forward(torch::randn({3, 7}));  // move u away from its init
  std::stringstream ss;
  {
    torch::serialize::OutputArchive out;
    a->save(out);
    out.save_to(ss);
  }
  torch::manual_seed(99);
  SNLinear b(7, 4, true, SNMode::kClamp);
  ASSERT_FALSE(torch::equal(a->u, b->u));
  torch::serialize::InputArchive in;
  in.load_from(ss);
  b->load(in);
  EXPECT_TRUE(torch::equal(a->u, b->u));
  a->eval();
  b->eval();
  auto x = torch::randn({3, 7});
  EXPECT_TRUE(torch::equal(a->forward(x), b->forward(x)));
}

TEST(SpectralNorm, ModulesMatchFunctionalForms) {
  torch::manual_seed(7);
  SNConv2d conv(SNConv2dOptions(4, 6, 3));
  SNLinear lin(5, 3);
  SNEmbedding emb(10, 6);
  for (auto* m : {static_cast<torch::nn::Module*>(conv.get()), static_cast<torch::nn::Module*>(lin.get()),
                  static_cast<torch::nn::Module*>(emb.get())}) {
    m->to(torch::kDouble);
    m->train();
  }
  // Scale weights up so the clamp is active, then let u converge.
  {
    torch::NoGradGuard ng;
    conv->weight.mul_(10);
    lin->weight.mul_(10);
    emb->weight.mul_(10);
  }
  auto x = torch::randn({2, 4, 5, 5}, torch::kDouble);
  auto xl = torch::randn({2, 5}, torch::kDouble);
  auto labels = torch::tensor({0, 3, 9}, torch::kLong);
  for (int i = 0; i < 300; ++i) {
    conv->forward(x);
    lin->forward(xl);
    emb->forward(labels);
  }
  const auto yc = conv->forward(x);
  const auto ec = torch::conv2d(x, conv->weight / top_singular_value(conv->weight), conv->bias, 1, 1);
  EXPECT_TRUE(torch::allclose(yc, ec, 1e-8, 1e-10));
  EXPECT_TRUE(torch::allclose(lin->forward(xl), torch::addmm(lin->bias, xl, (lin->weight / top_singular_value(lin->weight)).t()),
                              1e-8, 1e-10));
  const auto table = emb->weight / top_singular_value(emb->weight);
  EXPECT_TRUE(torch::allclose(emb->forward(labels), table.index_select(0, labels), 1e-8, 1e-10));
}

TEST(SpectralNorm, XavierUniformBounds) {
  torch::manual_seed(8);
  auto w = torch::empty({200, 300}, torch::kDouble);
  xavier_uniform_init(w, 300, 200);
  const double b = std::sqrt(6.0 / 500.0);
  EXPECT_LE(w.abs().max().item<double>(), b);
  EXPECT_GT(w.abs().max().item<double>(), 0.99 * b);
  EXPECT_NEAR(w.var().item<double>(), b * b / 3.0, 0.03 * b * b / 3.0);  // Var U(−b,b) = b²/3
}
