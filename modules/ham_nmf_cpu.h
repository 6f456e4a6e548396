#pragma once
// The K local NMF steps (modules/ham_decomposition.h: nmf_init_codes, then K × nmf_step; that file calls this one) fused
// into one pass per sample on the CPU, for float32 without autograd; and the Hamburger's whole one-step
// decomposition (ReLU, K steps, the differentiated final code update) with its backward.
//
// Why: at the Hamburger's GAN shapes (d = 16…64, n = 256…1024, r = d/8 = 2…8) every batched
// product of the ATen path has an r-wide side, too thin for the BLAS kernels, and each of the
// 4K + 1 products re-reads X from memory. Here X stays in the core's cache for all K steps, the
// (n × r) code update and the (d × r) product X·C share one pass, and the loops are vectorised
// over positions with r held in registers. Same formulas and the same ε; only the order of the
// floating-point sums differs from the ATen path (tested to 1e-5 relative in ham_nmf_cpu_test).
#include <torch/torch.h>

#include <utility>

namespace hamgan {

// Largest rank the fused kernel handles (its codes for one position live in registers).
constexpr int64_t kFusedNmfMaxRank = 8;

// Whether the kernels take these inputs: CPU float32 or bf16 x (B, d, n) and float32 bases (B, d, r),
// 1 ≤ r ≤ kFusedNmfMaxRank. A bf16 x (a bf16 convolution's output) is read as stored and widened on
// load, exactly: the factors, float32, are those of x.to(float32), with no float32 copy of x made.
bool fused_nmf_takes(const torch::Tensor& x, const torch::Tensor& bases);

// Whether nmf_local_steps_cpu takes these inputs: fused_nmf_takes, and no autograd graph wanted
// (the caller's one-step gradient, or evaluation).
bool fused_nmf_applies(const torch::Tensor& x, const torch::Tensor& bases);

// x (B, d, n) with any strides, bases (B, d, r): the factors after C₀ = softmax_r(XᵀD / T) and
// `steps` multiplicative updates of C then D with ε = eps in their denominators. Returns the
// contiguous pair (bases (B, d, r), codes (B, n, r)).
std::pair<torch::Tensor, torch::Tensor> nmf_local_steps_cpu(const torch::Tensor& x, const torch::Tensor& bases,
                                                            int64_t steps, double temperature, double eps);

// The Hamburger's whole one-step NMF in one pass per sample: X = ReLU(x), the K local steps, then
// the differentiated final code update C = (XᵀD) ⊙ S with S = C_K / (C_K DᵀD + ε) held constant.
// Besides the factors it returns S and, when `keep_for_backward`, the mask x > 0 in x's layout: all
// that nmf_one_step_backward_cpu needs (x itself is not kept).
struct NmfOneStepCpu {
  torch::Tensor bases;     // (B, d, r), constant
  torch::Tensor codes;     // (B, n, r), the final codes
  torch::Tensor scale;     // (B, n, r): S
  torch::Tensor positive;  // (B, d, n) bool; undefined unless kept for backward
  torch::ScalarType x_dtype = torch::kFloat;  // x's, which ∂X takes
};
NmfOneStepCpu nmf_one_step_cpu(const torch::Tensor& x, const torch::Tensor& bases, int64_t steps, double temperature,
                               double eps, bool keep_for_backward);

// ∂L/∂x of the final codes: [x > 0] ⊙ D (∂L/∂C ⊙ S)ᵀ, in the mask's layout (x's, for the (d, n) and
// channels_last layouts) and x's dtype (summed in float32, rounded once on store), so the bread's
// backward reads it without a copy or a cast. Reads `bases`, `scale` and
// `positive`; `codes` may be left undefined.
torch::Tensor nmf_one_step_backward_cpu(const torch::Tensor& grad_codes, const NmfOneStepCpu& saved);

}  // namespace hamgan
