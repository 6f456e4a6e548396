// What stays float32 under bf16 autocast (modules/fp32_region.h): the Hamburger's
// decomposition, spectral norm's σ and batch-norm statistics return what float32
// arithmetic returns, while autocast demonstrably lowers a plain matmul to bf16.
#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "modules/conditional_bn.h"
#include "modules/ham_decomposition.h"
#include "modules/spectral_norm.h"

namespace hamgan {
namespace {

// CPU autocast to bf16 for the scope, as the training loop's bf16 mode sets it.
class CpuBf16Autocast {
 public:
  CpuBf16Autocast() {
    at::autocast::set_autocast_dtype(at::kCPU, at::kBFloat16);
    at::autocast::set_autocast_enabled(at::kCPU, true);
  }
  ~CpuBf16Autocast() {
    at::autocast::set_autocast_enabled(at::kCPU, false);
    at::autocast::clear_cache();
  }
};

double relative_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return ((a.to(torch::kDouble) - b.to(torch::kDouble)).norm() / b.to(torch::kDouble).norm()).item<double>();
}

TEST(Fp32Region, AutocastLowersAPlainMatmul) {
  const torch::Tensor a = torch::rand({2, 8, 8});
  CpuBf16Autocast bf16;
  EXPECT_EQ(torch::bmm(a, a).scalar_type(), torch::kBFloat16);
}

TEST(Fp32Region, HamDecompositionUnderBf16MatchesFloat32) {
  torch::manual_seed(3);
  for (HamType type : {HamType::kNMF, HamType::kVQ, HamType::kCD}) {
    const torch::Tensor x = torch::rand({2, 16, 64}), bases = ham_random_bases(type, 2, 16, 4, torch::kFloat);
    HamSolverOptions o;
    o.type = type;
    o.temperature = default_ham_temperature(type);
    const HamFactors reference = ham_decompose(x, bases, o);
    HamFactors under_autocast;
    {
      CpuBf16Autocast bf16;
      // A bf16 input, as the bread's output is under autocast: the decomposition casts it up.
      under_autocast = ham_decompose(x.to(torch::kBFloat16), bases, o);
    }
    const HamFactors from_rounded = ham_decompose(x.to(torch::kBFloat16).to(torch::kFloat), bases, o);
    EXPECT_EQ(under_autocast.codes.scalar_type(), torch::kFloat) << to_string(type);
    EXPECT_EQ(under_autocast.bases.scalar_type(), torch::kFloat) << to_string(type);
    // Exactly the float32 computation on the (bf16-rounded) input ...
    EXPECT_LT(relative_difference(under_autocast.codes, from_rounded.codes), 1e-6) << to_string(type);
    EXPECT_LT(relative_difference(under_autocast.bases, from_rounded.bases), 1e-6) << to_string(type);
    // ... and from a float32 input too: float32 arithmetic throughout.
    HamFactors fp32_input;
    {
      CpuBf16Autocast bf16;
      fp32_input = ham_decompose(x, bases, o);
    }
    EXPECT_LT(relative_difference(fp32_input.codes, reference.codes), 1e-6) << to_string(type);
    EXPECT_LT(relative_difference(fp32_input.bases, reference.bases), 1e-6) << to_string(type);
  }
}

TEST(Fp32Region, SpectralNormUnderBf16IsFloat32) {
  torch::manual_seed(4);
  const torch::Tensor w = torch::randn({16, 8, 3, 3});
  torch::Tensor u1 = torch::randn({16}), u2 = u1.clone();
  const torch::Tensor reference = spectral_normalize(w, u1, SNMode::kExact, true);
  torch::Tensor reduced;
  {
    CpuBf16Autocast bf16;
    reduced = spectral_normalize(w, u2, SNMode::kExact, true);
  }
  EXPECT_EQ(reduced.scalar_type(), torch::kFloat);
  EXPECT_LT(relative_difference(reduced, reference), 1e-6);
  EXPECT_LT(relative_difference(u2, u1), 1e-6);
}

// A bf16 map stays bf16 (no float32 copy of the activation), normalised with float32 statistics: the
// moving averages to float32 rounding, the output to bf16 rounding of the float64 result.
TEST(Fp32Region, BatchNormOfABf16InputIsBf16WithFloat32Statistics) {
  torch::manual_seed(5);
  ConditionalBatchNorm bn(ConditionalBatchNormOptions(3, 0).momentum(0.5));
  const torch::Tensor x = (torch::randn({4, 3, 5, 5}) * 3 + 100).to(torch::kBFloat16);
  torch::Tensor y;
  {
    CpuBf16Autocast bf16;
    y = bn->forward(x);
  }
  // Expected from the bf16 values themselves, in double.
  const torch::Tensor xd = x.to(torch::kDouble);
  const torch::Tensor mean = xd.mean({0, 2, 3}), var = xd.var({0, 2, 3}, /*unbiased=*/false);
  EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
  EXPECT_EQ(bn->running_mean.scalar_type(), torch::kFloat);
  EXPECT_LT(relative_difference(bn->running_mean, 0.5 * mean), 1e-6);
  EXPECT_LT(relative_difference(bn->running_var, 0.5 + 0.5 * var), 1e-5);
  const torch::Tensor expected = (xd - mean.view({1, 3, 1, 1})) / (var.view({1, 3, 1, 1}) + 1e-3).sqrt();
  EXPECT_LT(relative_difference(y.to(torch::kDouble), expected), std::ldexp(1.0, -8));  // bf16: 8 significant bits
  // Bf16 statistics would be off by about 1e-3 here; a float32 result is the copy this rules out.
}

// Under autocast a convolution's W/σ is written once in bf16: the value autocast would have cast the
// float32 quotient to, and the same gradient for the float32 weight, bit for bit.
TEST(Fp32Region, SpectralNormWritesAConvolutionsWeightInBf16UnderAutocast) {
  torch::manual_seed(6);
  SNConv2d conv(SNConv2dOptions(8, 16, 3));
  conv->eval();  // u stays, so both paths see the same σ
  const torch::Tensor x = torch::randn({2, 8, 6, 6}), upstream = torch::randn({2, 16, 6, 6});
  torch::Tensor u = conv->u.clone();
  const torch::Tensor quotient_f32 = spectral_normalize(conv->weight, u, conv->options.mode(), false);
  torch::Tensor in_bf16, grad_new, grad_old;
  {
    CpuBf16Autocast bf16;
    in_bf16 = conv->normalized_weight();
    conv->forward(x).to(torch::kFloat).mul(upstream).sum().backward();
    grad_new = conv->weight.grad().clone();
    conv->weight.mutable_grad() = torch::Tensor();
    u = conv->u.clone();
    const torch::Tensor old = spectral_normalize(conv->weight, u, conv->options.mode(), false);  // float32, cast by conv2d
    torch::conv2d(x, old, conv->bias, 1, 1).to(torch::kFloat).mul(upstream).sum().backward();
    grad_old = conv->weight.grad().clone();
  }
  EXPECT_EQ(in_bf16.scalar_type(), torch::kBFloat16);
  EXPECT_TRUE(torch::equal(in_bf16, quotient_f32.detach().to(torch::kBFloat16)));
  EXPECT_EQ(grad_new.scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::equal(grad_new, grad_old)) << (grad_new - grad_old).abs().max();
  EXPECT_EQ(conv->normalized_weight().scalar_type(), torch::kFloat);  // outside autocast: float32 as before
}

// A float32 map takes the path it always took: ATen's batch norm without a weight, then the gain and bias
// in one addcmul, and the moving averages as mul_ then add_; bit for bit.
TEST(Fp32Region, BatchNormOfAFloat32InputIsUnchanged) {
  torch::manual_seed(7);
  ConditionalBatchNorm bn(ConditionalBatchNormOptions(3, 4).momentum(0.25));
  {
    torch::NoGradGuard no_grad;
    bn->gain.uniform_(0.5, 1.5);
    bn->bias.uniform_(-1, 1);
  }
  const torch::Tensor x = torch::randn({5, 3, 4, 4}), labels = torch::tensor({0, 3, 1, 1, 2});
  const torch::Tensor y = bn->forward(x, labels);
  const auto [normalised, mean, inv_std] = torch::native_batch_norm(x, {}, {}, {}, {}, true, 0.0, 1e-3);
  const torch::Tensor g = bn->gain.index_select(0, labels).view({-1, 3, 1, 1});
  const torch::Tensor b = bn->bias.index_select(0, labels).view({-1, 3, 1, 1});
  EXPECT_TRUE(torch::equal(y, torch::addcmul(b, normalised, g)));
  EXPECT_TRUE(torch::equal(bn->running_mean, torch::zeros({3}).mul_(0.75).add_(mean, 0.25)));
  EXPECT_TRUE(torch::equal(bn->running_var, torch::ones({3}).mul_(0.75).add_(inv_std.pow(-2) - 1e-3, 0.25)));
}

}  // namespace
}  // namespace hamgan
