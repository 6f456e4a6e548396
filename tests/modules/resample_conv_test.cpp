// Resampling folded into the convolution (modules/resample_conv.h) equals the separate
// passes in float64, outputs and the gradients of input, kernel and bias, in both memory
// layouts and for inputs that are not square; and the kernel maps are the exact sums
// the derivation gives, checked tap by tap.
#include <gtest/gtest.h>

#include "modules/resample_conv.h"
#include "tests/modules/module_test_util.h"

namespace hamgan {
namespace {

namespace F = torch::nn::functional;

torch::Tensor upsample_then_conv(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  const auto nearest = F::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0, 2.0}).mode(torch::kNearest);
  return torch::conv2d(F::interpolate(x, nearest), w, b, 1, 1);
}

torch::Tensor conv_then_pool(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  return torch::avg_pool2d(torch::conv2d(x, w, b, 1, 1), {2, 2}, {2, 2});
}

using Conv = torch::Tensor (*)(const torch::Tensor&, const torch::Tensor&, const torch::Tensor&);

// Output and the three gradients of `folded` and `separate` on the same draws, under a random
// upstream gradient; the largest difference of each, relative to the separate form's largest entry.
void expect_equal_forms(Conv folded, Conv separate, bool channels_last, int64_t h, int64_t w_side) {
  auto gen = test::seeded(7);
  auto x = torch::randn({2, 5, h, w_side}, gen, test::kF64);
  if (channels_last) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
  const auto w = torch::randn({6, 5, 3, 3}, gen, test::kF64), b = torch::randn({6}, gen, test::kF64);
  std::vector<torch::Tensor> results[2];
  torch::Tensor upstream;
  for (int form = 0; form < 2; ++form) {
    auto xi = x.detach().requires_grad_(), wi = w.detach().requires_grad_(), bi = b.detach().requires_grad_();
    const torch::Tensor y = (form == 0 ? folded : separate)(xi, wi, bi);
    if (!upstream.defined()) upstream = torch::randn(y.sizes(), gen, test::kF64);
    (y * upstream).sum().backward();
    results[form] = {y, xi.grad(), wi.grad(), bi.grad()};
  }
  const char* names[] = {"output", "input gradient", "kernel gradient", "bias gradient"};
  for (int k = 0; k < 4; ++k) {
    ASSERT_EQ(results[0][k].sizes(), results[1][k].sizes()) << names[k];
    const double scale = results[1][k].abs().max().item<double>();
    EXPECT_LE((results[0][k] - results[1][k]).abs().max().item<double>(), 1e-13 * scale) << names[k];
  }
}

TEST(ResampleConv, UpsamplingFoldEqualsUpsampleThenConvWithGradients) {
  for (bool channels_last : {false, true}) {
    SCOPED_TRACE(channels_last ? "channels_last" : "contiguous");
    expect_equal_forms(upsample_conv3x3, upsample_then_conv, channels_last, 4, 4);
    expect_equal_forms(upsample_conv3x3, upsample_then_conv, channels_last, 3, 5);
  }
}

TEST(ResampleConv, PoolingFoldEqualsConvThenPoolWithGradients) {
  for (bool channels_last : {false, true}) {
    SCOPED_TRACE(channels_last ? "channels_last" : "contiguous");
    expect_equal_forms(conv3x3_avgpool, conv_then_pool, channels_last, 8, 8);
    expect_equal_forms(conv3x3_avgpool, conv_then_pool, channels_last, 4, 6);
  }
}

// The maps tap by tap for a kernel whose 3×3 taps are 1, 10, 100, ... so that each sum is readable.
TEST(ResampleConv, KernelMapsAreTheDerivedSums) {
  const auto w = torch::pow(10.0, torch::arange(9, test::kF64)).view({1, 1, 3, 3});
  const auto tap = [&](int k, int l) { return w[0][0][k][l].item<double>(); };
  const auto up = upsampling_kernel(w), pool = pooling_kernel(w);
  ASSERT_EQ(up.sizes(), (std::vector<int64_t>{1, 1, 4, 4}));
  ASSERT_EQ(pool.sizes(), (std::vector<int64_t>{1, 1, 4, 4}));
  // Per axis: upsampling taps (w2, w1 + w2, w0 + w1, w0), pooling taps (w0, w0 + w1, w1 + w2, w2) / 2.
  const std::vector<std::vector<int>> up_axis = {{2}, {1, 2}, {0, 1}, {0}}, pool_axis = {{0}, {0, 1}, {1, 2}, {2}};
  for (int a = 0; a < 4; ++a)
    for (int c = 0; c < 4; ++c) {
      double want_up = 0, want_pool = 0;
      for (int k : up_axis[a])
        for (int l : up_axis[c]) want_up += tap(k, l);
      for (int k : pool_axis[a])
        for (int l : pool_axis[c]) want_pool += tap(k, l) / 4;
      EXPECT_EQ(up[0][0][a][c].item<double>(), want_up) << a << "," << c;
      EXPECT_EQ(pool[0][0][a][c].item<double>(), want_pool) << a << "," << c;
    }
}

TEST(ResampleConv, RefusesAnOddMapAndAKernelThatIsNotThreeByThree) {
  const auto w = torch::ones({2, 2, 3, 3});
  EXPECT_THROW(conv3x3_avgpool(torch::ones({1, 2, 5, 4}), w, {}), c10::Error);
  EXPECT_THROW(upsampling_kernel(torch::ones({2, 2, 5, 5})), c10::Error);
}

}  // namespace
}  // namespace hamgan
