// Matrix decompositions for the Hamburger (see ham_decomposition.h).
// Shapes throughout: x (B, d, n), bases D (B, d, r), codes C (B, n, r).
#include "modules/ham_decomposition.h"

#include <tuple>

#include "modules/fp32_region.h"
#include "modules/ham_nmf_cpu.h"

namespace hamgan {
namespace {

// x / max(‖x‖₂ over dim 1, eps): torch's F.normalize and TF's l2_normalize (up to eps placement).
torch::Tensor normalize_d(const torch::Tensor& t, double eps) {
  return t / t.norm(2, {1}, /*keepdim=*/true).clamp_min(eps);
}

// 1 / max(‖x_j‖, eps) per position as (B, n, 1): normalise(X)ᵀD = diag(1/‖x_j‖) XᵀD, so the
// cosine needs no normalised copy of X (a (B, d, n) temporary) — only an (n × r) rescale.
torch::Tensor inverse_column_norms(const torch::Tensor& x, double eps) {
  return x.norm(2, {1}, /*keepdim=*/true).clamp_min(eps).reciprocal().transpose(1, 2);
}

// softmax over r of logits / T, then divide each column by its sum over n (paper Alg. 1: diag(C·1)⁻¹).
torch::Tensor soft_assign(const torch::Tensor& logits, double temperature) {
  auto c = torch::softmax(logits / temperature, /*dim=*/-1);  // (B, n, r)
  return c / (c.sum(/*dim=*/1, /*keepdim=*/true) + kHamEps);
}

void check_shapes(const torch::Tensor& x, const torch::Tensor& bases) {
  TORCH_CHECK(x.dim() == 3 && bases.dim() == 3 && x.size(0) == bases.size(0) && x.size(1) == bases.size(1),
              "ham: expected x (B, d, n) and bases (B, d, r), got ", x.sizes(), " and ", bases.sizes());
}

// factor ⊙ numerator / (denominator + ε). Without autograd the temporaries are reused in place
// (the K local steps then allocate only the two matrix products per update).
torch::Tensor multiplicative_update(const torch::Tensor& factor, torch::Tensor& numerator, torch::Tensor& denominator) {
  if (!torch::GradMode::is_enabled()) return numerator.div_(denominator.add_(kHamEps)).mul_(factor);
  return factor * numerator / (denominator + kHamEps);
}

}  // namespace

double default_ham_temperature(HamType type) { return type == HamType::kNMF ? 1.0 : 0.01; }

torch::Tensor ham_random_bases(HamType type, int64_t batch, int64_t d, int64_t r, const torch::TensorOptions& options,
                               std::optional<at::Generator> generator) {
  // Draw on the generator's device when one is given (tests pass a CPU generator), then move.
  auto draw_opts = generator ? options.device(generator->device()) : options;
  torch::Tensor bases;
  if (type == HamType::kNMF) {
    bases = torch::rand({batch, d, r}, generator, draw_opts);  // U[0,1), not normalised (GAN code)
  } else {
    bases = normalize_d(torch::randn({batch, d, r}, generator, draw_opts), 1e-12);
  }
  return bases.to(options.device());
}

// ---------------------------------------------------------------- NMF
torch::Tensor nmf_init_codes(const torch::Tensor& x, const torch::Tensor& bases, double temperature) {
  check_shapes(x, bases);
  return torch::softmax(torch::bmm(x.transpose(1, 2), bases) / temperature, -1);  // (B, n, r)
}

torch::Tensor nmf_update_codes(const torch::Tensor& x, const torch::Tensor& bases, const torch::Tensor& codes) {
  auto numerator = torch::bmm(x.transpose(1, 2), bases);                       // (B, n, r)
  auto denominator = torch::bmm(codes, torch::bmm(bases.transpose(1, 2), bases));  // (B, n, r)·(B, r, r)
  return multiplicative_update(codes, numerator, denominator);
}

torch::Tensor nmf_update_bases(const torch::Tensor& x, const torch::Tensor& bases, const torch::Tensor& codes) {
  auto numerator = torch::bmm(x, codes);                                         // (B, d, r)
  auto denominator = torch::bmm(bases, torch::bmm(codes.transpose(1, 2), codes));  // (B, d, r)·(B, r, r)
  return multiplicative_update(bases, numerator, denominator);
}

HamFactors nmf_step(const torch::Tensor& x, const HamFactors& f) {
  auto codes = nmf_update_codes(x, f.bases, f.codes);
  return {nmf_update_bases(x, f.bases, codes), codes};
}

// ---------------------------------------------------------------- VQ
HamFactors vq_step(const torch::Tensor& x, const torch::Tensor& bases, double temperature) {
  check_shapes(x, bases);
  auto cosine = torch::bmm(x.transpose(1, 2), normalize_d(bases, kHamEps)) * inverse_column_norms(x, 1e-12);
  auto codes = soft_assign(cosine, temperature);
  return {torch::bmm(x, codes), codes};  // D = X C diag(Σ_n C)⁻¹: (B, d, r)
}

torch::Tensor vq_codes(const torch::Tensor& x, const torch::Tensor& bases, double temperature, bool detach_norm) {
  check_shapes(x, bases);
  auto norm = x.norm(2, {1}, /*keepdim=*/true).transpose(1, 2);  // (B, n, 1)
  if (detach_norm) norm = norm.detach();
  auto cosine = torch::bmm(x.transpose(1, 2), normalize_d(bases, kHamEps)) / (norm + kHamEps);
  return torch::softmax(cosine / temperature, -1);
}

// ---------------------------------------------------------------- CD
HamFactors cd_step(const torch::Tensor& x, const torch::Tensor& bases, double temperature) {
  check_shapes(x, bases);
  auto codes = soft_assign(torch::bmm(x.transpose(1, 2), bases) * inverse_column_norms(x, 1e-12), temperature);
  return {normalize_d(torch::bmm(x, codes), kHamEps), codes};
}

torch::Tensor cd_codes(const torch::Tensor& x, const torch::Tensor& bases, double beta) {
  check_shapes(x, bases);
  const int64_t r = bases.size(2);
  auto gram = torch::bmm(bases.transpose(1, 2), bases) + beta * torch::eye(r, bases.options());  // (B, r, r)
  auto rhs = torch::bmm(bases.transpose(1, 2), x);                                              // (B, r, n)
  // Gram + βI is symmetric positive definite, so the solve cannot fail: the _ex
  // form skips linalg_solve's error check, which reads a flag on the host.
  return std::get<0>(torch::linalg_solve_ex(gram, rhs)).transpose(1, 2);  // (B, n, r)
}

// ---------------------------------------------------------------- driver
HamFactors ham_local_steps(const torch::Tensor& x_in, const torch::Tensor& bases_in, const HamSolverOptions& o) {
  Fp32Region fp32;  // multiplicative updates and their ε-guarded divisions need float32's mantissa
  const torch::Tensor x = to_fp32_if_reduced(x_in), bases = to_fp32_if_reduced(bases_in);
  check_shapes(x, bases);
  TORCH_CHECK(o.steps >= 0 && o.temperature > 0 && o.beta > 0, "ham: bad solver options");
  const bool one_step = o.gradient == HamGradient::kOneStep;
  HamFactors f{bases, {}};
  {
    // One-step gradient (docs/ham.md): the K local steps record no graph and keep no activations.
    std::optional<torch::NoGradGuard> no_grad;
    if (one_step) no_grad.emplace();
    switch (o.type) {
      case HamType::kNMF:
        if (fused_nmf_applies(x, f.bases)) {  // CPU float32 without a graph: one pass per sample
          std::tie(f.bases, f.codes) = nmf_local_steps_cpu(x, f.bases, o.steps, o.temperature, kHamEps);
          break;
        }
        f.codes = nmf_init_codes(x, f.bases, o.temperature);
        for (int64_t k = 0; k < o.steps; ++k) f = nmf_step(x, f);
        break;
      case HamType::kVQ:
        for (int64_t k = 0; k < o.steps; ++k) f = vq_step(x, f.bases, o.temperature);
        break;
      case HamType::kCD:
        for (int64_t k = 0; k < o.steps; ++k) f = cd_step(x, f.bases, o.temperature);
        break;
    }
  }
  if (one_step) {
    f.bases = f.bases.detach();
    if (f.codes.defined()) f.codes = f.codes.detach();
  }
  return f;
}

torch::Tensor nmf_one_step_scale(const HamFactors& f) {
  torch::NoGradGuard no_grad;
  Fp32Region fp32;
  auto den = torch::bmm(f.codes, torch::bmm(f.bases.transpose(1, 2), f.bases)).add_(kHamEps);  // (B, n, r)
  return den.reciprocal_().mul_(f.codes);
}

torch::Tensor ham_final_codes(const torch::Tensor& x_in, const HamFactors& f, const HamSolverOptions& o) {
  Fp32Region fp32;
  const torch::Tensor x = to_fp32_if_reduced(x_in);
  const bool one_step = o.gradient == HamGradient::kOneStep;
  switch (o.type) {
    case HamType::kNMF:
      // With C, D constant, C ⊙ (XᵀD) / (C DᵀD + ε) = (XᵀD) ⊙ S: one differentiable product
      // that saves only S (B, n, r).
      return one_step ? torch::bmm(x.transpose(1, 2), f.bases) * nmf_one_step_scale(f)
                      : nmf_update_codes(x, f.bases, f.codes);
    case HamType::kVQ:
      return vq_codes(x, f.bases, o.temperature, /*detach_norm=*/one_step);
    case HamType::kCD:
      return cd_codes(x, f.bases, o.beta);
  }
  TORCH_CHECK(false, "ham: unknown type");
}

HamFactors ham_decompose(const torch::Tensor& x, const torch::Tensor& bases, const HamSolverOptions& o) {
  auto f = ham_local_steps(x, bases, o);
  f.codes = ham_final_codes(x, f, o);  // the only autograd graph in one-step mode
  return f;
}

torch::Tensor ham_reconstruct(const HamFactors& f) { return torch::bmm(f.bases, f.codes.transpose(1, 2)); }

}  // namespace hamgan
