#pragma once
// Fréchet distance between two Gaussians (docs/metrics.md, "The Fréchet distance"):
//   d² = ‖μ₁−μ₂‖² + tr Σ₁ + tr Σ₂ − 2·tr((Σ₁Σ₂)^½)
// in float64. tr((Σ₁Σ₂)^½) is computed in the symmetric form
// tr((A Σ₂ A)^½) with A = Σ₁^½ (TF-GAN's classifier_metrics.py): Σ₁Σ₂ is
// similar to AΣ₂A, which is symmetric positive semi-definite, so two `eigh`
// calls give the eigenvalues exactly where scipy's Schur-based `sqrtm` of the
// non-symmetric product (pytorch-fid, TTUR) only approximates them. Both agree
// to ~1e-8 relative on random, rank-deficient and zero-variance covariances
// (tests/metrics/frechet_test.cpp checks ≤ 1e-6 against pytorch-fid and scipy).
#include <torch/torch.h>

namespace hamgan {

struct FrechetOptions {
  double eps = 1e-6;          // pytorch-fid's diagonal offset for singular products
  bool eps_offset = false;    // add eps·I to both Σ (pytorch-fid's fallback branch) before the root
  double max_imaginary = 1e-3;  // pytorch-fid's tolerance on the root's imaginary part
                                // (times √λ_max when that exceeds 1)
};

struct FrechetResult {
  double distance = 0;       // the FID
  double mean_term = 0;      // ‖μ₁−μ₂‖²
  double trace_sqrt = 0;     // tr((Σ₁Σ₂)^½), real part
  double imaginary = 0;      // √|most negative eigenvalue| of AΣ₂A: the imaginary residue a
                             // complex sqrtm would show (numerical noise; 0 for exact PSD input)
  bool singular = false;     // Σ₁ or Σ₂ rank-deficient (fewer samples than dimensions, dead features)
};

// mu: (D) and sigma: (D, D), any floating dtype (computed in float64).
// Throws DataError on shape mismatch, non-finite input, or an imaginary
// residue above max_imaginary·max(1, √λ_max) (Σ not positive semi-definite).
FrechetResult frechet_distance(const torch::Tensor& mu1, const torch::Tensor& sigma1, const torch::Tensor& mu2,
                               const torch::Tensor& sigma2, const FrechetOptions& options = {});

// tr(M^½) for M = Σ₁Σ₂ via the symmetric route; also returns the residue.
double trace_sqrt_product(const torch::Tensor& sigma1, const torch::Tensor& sigma2, double* imaginary = nullptr);

}  // namespace hamgan
