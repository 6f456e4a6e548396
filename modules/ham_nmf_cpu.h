#pragma once
// The K local NMF steps (modules/ham_decomposition.h: nmf_init_codes, then K × nmf_step; that file calls this one) fused
// into one pass per sample on the CPU, for float32 without autograd.
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

// Whether nmf_local_steps_cpu takes these inputs: CPU float32, 1 ≤ r ≤ kFusedNmfMaxRank,
// and no autograd graph wanted (the caller's one-step gradient, or evaluation).
bool fused_nmf_applies(const torch::Tensor& x, const torch::Tensor& bases);

// x (B, d, n) with any strides, bases (B, d, r): the factors after C₀ = softmax_r(XᵀD / T) and
// `steps` multiplicative updates of C then D with ε = eps in their denominators. Returns the
// contiguous pair (bases (B, d, r), codes (B, n, r)).
std::pair<torch::Tensor, torch::Tensor> nmf_local_steps_cpu(const torch::Tensor& x, const torch::Tensor& bases,
                                                            int64_t steps, double temperature, double eps);

}  // namespace hamgan
