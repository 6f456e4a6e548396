#pragma once
// The pieces of spectral normalisation that a layer alone (spectral_normalize,
// modules/spectral_norm.h) and a SpectralNormGroup share, so both compute the
// same numbers: the weight as a matrix, and W / d with the closed-form backward
//   ∂L/∂W = G/d − scale·⟨G, W⟩·u vᵀ,   scale = [σ counts] / d²,
// where u and v, the power iteration's vectors, are constants for autograd.
// A backward pass that builds a graph (create_graph, as a gradient penalty's)
// gets the same closed form written in differentiable ops, with d a function of
// W again, so the second backward pass is exact too.
#include <torch/torch.h>

namespace hamgan {

// W as (out, columns), a view where the layout allows: a channels_last
// convolution's columns in (kh, kw, in) order. Any fixed order of the columns
// has the same singular values and the same u; only v comes out permuted.
torch::Tensor sn_matrix(const torch::Tensor& weight);
// From σ: the divisor d (max(1, σ) where `clamped`, a bool tensor shaped like σ
// or 0-dim, else σ) and the backward's scale, [σ counts] / d².
struct SNDivisor {
  torch::Tensor d, scale;
};
SNDivisor sn_divisor(const torch::Tensor& sigma, const torch::Tensor& clamped);
// W / d with the backward above: u, v and `scale` (= [σ counts] / d²) are constants. The
// quotient is written in `out` (bf16 under autocast: one pass, rounded once, as a float32
// quotient cast afterwards would be); the gradient reaching W is W's dtype whatever `out` is.
torch::Tensor sn_divide(const torch::Tensor& weight, const torch::Tensor& d, const torch::Tensor& u,
                        const torch::Tensor& v, const torch::Tensor& scale,
                        at::ScalarType out = at::ScalarType::Undefined);

}  // namespace hamgan
