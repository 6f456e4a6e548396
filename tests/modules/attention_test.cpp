// SAGAN self-attention (docs/modules.md, `sa`) against a naive double-precision reference
// (tests/modules/attention_oracle.h) and finite differences.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "modules/attention.h"
#include "tests/modules/attention_oracle.h"

using namespace hamgan;
using namespace hamgan::test;

TEST(SelfAttention, MatchesNaiveSoftmaxReference) {
  torch::manual_seed(0);
  for (auto hw : {std::pair<int64_t, int64_t>{4, 4}, {6, 8}}) {
    SelfAttentionImpl sa(16);
    sa.to(torch::kDouble);
    {
      torch::NoGradGuard ng;
      sa.sigma.fill_(0.8);
    }
    auto w = weights_of(sa);
    auto x = torch::randn({2, 16, hw.first, hw.second}, torch::kDouble) * 2;
    auto expected = naive_attention(x, w, 1, [](int64_t, int64_t, int64_t) { return false; });
    EXPECT_TRUE(torch::allclose(sa.forward(x), expected, 1e-10, 1e-12));
  }
}

TEST(SelfAttention, IdentityAtInitAndStructure) {
  torch::manual_seed(1);
  SelfAttentionImpl sa(32);
  auto x = torch::randn({2, 32, 8, 8});
  EXPECT_TRUE(torch::equal(sa.forward(x), x));
  EXPECT_EQ(sa.theta->weight.sizes(), (std::vector<int64_t>{4, 32, 1, 1}));
  EXPECT_EQ(sa.g->weight.sizes(), (std::vector<int64_t>{16, 32, 1, 1}));
  EXPECT_EQ(sa.o->weight.sizes(), (std::vector<int64_t>{32, 16, 1, 1}));
  for (auto* m : {&sa.theta, &sa.phi, &sa.g, &sa.o}) {
    EXPECT_FALSE((*m)->bias.defined());
    EXPECT_EQ((*m)->options.mode(), SNMode::kExact);
  }
  EXPECT_THROW(sa.forward(torch::randn({1, 32, 5, 4})), std::exception);  // odd side
}

TEST(SelfAttention, GradientMatchesFiniteDifferences) {
  torch::manual_seed(2);
  SelfAttentionImpl sa(16);
  sa.to(torch::kDouble);
  {
    torch::NoGradGuard ng;
    sa.sigma.fill_(0.9);
  }
  sa.eval();
  auto x = torch::randn({1, 16, 4, 4}, torch::kDouble).requires_grad_(true);
  auto r = torch::randn({1, 16, 4, 4}, torch::kDouble);
  (sa.forward(x) * r).sum().backward();
  auto flat = x.detach().clone().view({-1});
  for (int64_t i = 0; i < flat.numel(); i += 13) {
    torch::NoGradGuard ng;
    auto xp = flat.clone(), xm = flat.clone();
    xp[i] += 1e-6;
    xm[i] -= 1e-6;
    const double fd = ((sa.forward(xp.view(x.sizes())) - sa.forward(xm.view(x.sizes()))) * r).sum().item<double>() / 2e-6;
    EXPECT_NEAR(x.grad().view({-1})[i].item<double>(), fd, 1e-6);
  }
}
