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

TEST(Fp32Region, BatchNormStatisticsOfABf16InputAreFloat32) {
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
  EXPECT_EQ(y.scalar_type(), torch::kFloat);
  EXPECT_EQ(bn->running_mean.scalar_type(), torch::kFloat);
  EXPECT_LT(relative_difference(bn->running_mean, 0.5 * mean), 1e-6);
  EXPECT_LT(relative_difference(bn->running_var, 0.5 + 0.5 * var), 1e-5);
  const torch::Tensor expected = (xd - mean.view({1, 3, 1, 1})) / (var.view({1, 3, 1, 1}) + 1e-3).sqrt();
  EXPECT_LT(relative_difference(y, expected), 1e-5);
}

}  // namespace
}  // namespace hamgan
