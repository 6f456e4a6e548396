#pragma once
// The Hamburger's "ham": K steps of a matrix decomposition of X (B, d, n), n = H·W
// (the Hamburger paper's Alg. 1-3; docs/ham.md, "The decompositions").
//
// Layout follows the reference code: bases D (B, d, r), codes C (B, n, r) — the
// paper's C (r × n) transposed — and the reconstruction X̂ = D Cᵀ (B, d, n).
// No n × n tensor is ever formed: every product is (n·d·r) or smaller.
//
// Each step is its own function so it can be checked against the formula; the
// driver ham_decompose() runs the K steps and the final code step with either
// the one-step gradient (K steps without autograd, gradient through the last
// code update only) or full back-propagation through all steps (BPTT).
#include <torch/torch.h>

#include <optional>

#include "modules/ham_types.h"

namespace hamgan {

constexpr double kHamEps = 1e-6;  // denominators and normalisations (reference code: 1e-6)

struct HamSolverOptions {
  HamType type = HamType::kNMF;
  int64_t steps = 6;                             // K local steps
  HamGradient gradient = HamGradient::kOneStep;  // one-step gradient or BPTT through all K steps
  double temperature = 1.0;                      // softmax temperature T (the code's inv_t = 1 / T)
  double beta = 0.01;                            // CD ridge term β
};

struct HamFactors {
  torch::Tensor bases;  // D: (B, d, r)
  torch::Tensor codes;  // C: (B, n, r)
};

// The reference temperature of each type: NMF 1, VQ and CD 0.01 (the codes' inv_t 100).
double default_ham_temperature(HamType type);

// Random initial bases (B, d, r): NMF Uniform[0,1) unnormalised (GAN code);
// VQ/CD N(0,1) L2-normalised over d.
torch::Tensor ham_random_bases(HamType type, int64_t batch, int64_t d, int64_t r, const torch::TensorOptions& options,
                               std::optional<at::Generator> generator = std::nullopt);

// ---- NMF (multiplicative updates, Lee & Seung; GAN nmf) ----
// C₀ = softmax_r(XᵀD / T).
torch::Tensor nmf_init_codes(const torch::Tensor& x, const torch::Tensor& bases, double temperature);
// C ← C ⊙ (XᵀD) / (C (DᵀD) + ε).
torch::Tensor nmf_update_codes(const torch::Tensor& x, const torch::Tensor& bases, const torch::Tensor& codes);
// D ← D ⊙ (X C) / (D (CᵀC) + ε).
torch::Tensor nmf_update_bases(const torch::Tensor& x, const torch::Tensor& bases, const torch::Tensor& codes);
// One local step: codes first, then bases with the new codes.
HamFactors nmf_step(const torch::Tensor& x, const HamFactors& f);

// ---- Soft VQ (paper Alg. 1; seg VQ2D) ----
// C = softmax_r(cos(X, D) / T); C ← C / (ε + Σ_n C); D = X C.
HamFactors vq_step(const torch::Tensor& x, const torch::Tensor& bases, double temperature);
// Final codes: softmax_r((X / (ε + ‖X‖))ᵀ normalise(D) / T); ‖X‖ is a constant for autograd
// when detach_norm is set (the reference code's one-step path).
torch::Tensor vq_codes(const torch::Tensor& x, const torch::Tensor& bases, double temperature, bool detach_norm);

// ---- Soft concept decomposition (paper Alg. 3; GAN cd) ----
// C = softmax_r(normalise(X)ᵀ D / T); C ← C / (ε + Σ_n C); D = normalise_d(X C).
HamFactors cd_step(const torch::Tensor& x, const torch::Tensor& bases, double temperature);
// Final codes: C = Xᵀ D (DᵀD + βI)⁻¹ (ridge least squares), solved, not inverted.
torch::Tensor cd_codes(const torch::Tensor& x, const torch::Tensor& bases, double beta);

// The K local steps from `bases` (no autograd in one-step mode; the result is then detached).
// For NMF the returned codes are the state after K steps; for VQ/CD codes may be undefined.
HamFactors ham_local_steps(const torch::Tensor& x, const torch::Tensor& bases, const HamSolverOptions& options);
// The final code step from that state: the codes returned by ham_decompose.
torch::Tensor ham_final_codes(const torch::Tensor& x, const HamFactors& state, const HamSolverOptions& options);
// For NMF with the one-step gradient: S = C / (C DᵀD + ε) (no autograd), so the final codes are (XᵀD) ⊙ S.
torch::Tensor nmf_one_step_scale(const HamFactors& state);

// K local steps from `bases` then the final code step. In one-step mode the K steps run
// under NoGradGuard (they store nothing) and the returned bases are detached; the
// returned codes carry the only autograd graph. In BPTT mode everything is differentiable.
HamFactors ham_decompose(const torch::Tensor& x, const torch::Tensor& bases, const HamSolverOptions& options);

// X̂ = D Cᵀ: (B, d, n).
torch::Tensor ham_reconstruct(const HamFactors& f);

}  // namespace hamgan
