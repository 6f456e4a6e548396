#include "modules/spectral_divide.h"

#include "modules/fp32_region.h"

namespace hamgan {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

bool channels_last_conv(const torch::Tensor& w) {
  return w.dim() == 4 && !w.is_contiguous() && w.is_contiguous(torch::MemoryFormat::ChannelsLast);
}

// The inverse of sn_matrix for a contiguous (out, columns) tensor.
torch::Tensor like_weight(const torch::Tensor& m, const torch::Tensor& w) {
  if (channels_last_conv(w)) return m.view({w.size(0), w.size(2), w.size(3), w.size(1)}).permute({0, 3, 1, 2});
  return m.view(w.sizes());
}

// The closed form as a function autograd can differentiate again, for a second backward pass (a
// gradient penalty): d, a constant of the first backward, is rebuilt from W as
// d + [σ counts]·(uᵀWv − uᵀWv detached), the same value whose gradient is [σ counts]·u vᵀ, so the
// second pass sees ∂d/∂W; u and v stay constants, as in the first.
torch::Tensor differentiable_grad(const torch::Tensor& g, const torch::Tensor& w, const torch::Tensor& d,
                                  const torch::Tensor& u, const torch::Tensor& v, const torch::Tensor& scale) {
  Fp32Region fp32;  // σ in float32 also when the backward runs under autocast
  const torch::Tensor counts = scale.gt(0).to(scale.scalar_type());  // scale = [σ counts] / d², d > 0
  const torch::Tensor sigma = torch::dot(u, torch::mv(sn_matrix(w), v));
  const torch::Tensor d_w = d + counts * (sigma - sigma.detach());
  const torch::Tensor c = (g * w).sum() * counts / (d_w * d_w);
  return g / d_w - like_weight(torch::outer(u * c, v), w);
}

// W / d, whose backward is the closed form in the header.
struct SpectralDivide : torch::autograd::Function<SpectralDivide> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& w, const torch::Tensor& d,
                               const torch::Tensor& u, const torch::Tensor& v, const torch::Tensor& scale,
                               at::ScalarType out) {
    ctx->save_for_backward({w, d, u, v, scale});
    if (out == at::ScalarType::Undefined || out == w.scalar_type()) return w / d;
    torch::Tensor quotient = torch::empty_like(w, w.options().dtype(out));  // keeps w's memory format
    at::div_out(quotient, w, d);
    return quotient;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list s = ctx->get_saved_variables();
    const torch::Tensor &w = s[0], &d = s[1], &u = s[2], &v = s[3], &scale = s[4];
    const torch::Tensor g = grads[0].to(w.scalar_type());  // a bf16 quotient's gradient, for a float32 W
    // Grad mode is on in a backward pass exactly when it builds a graph (create_graph).
    if (torch::GradMode::is_enabled()) return {differentiable_grad(g, w, d, u, v, scale), {}, {}, {}, {}, {}};
    torch::Tensor grad_w = g / d;
    const torch::Tensor c = (g * w).sum() * scale;  // ⟨G, W⟩ [σ counts] / d²
    grad_w.sub_(like_weight(torch::outer(u * c, v), w));
    return {grad_w, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor sn_matrix(const torch::Tensor& w) {
  if (channels_last_conv(w)) return w.permute({0, 2, 3, 1}).reshape({w.size(0), -1});
  return w.reshape({w.size(0), -1});
}

SNDivisor sn_divisor(const torch::Tensor& sigma, const torch::Tensor& clamped) {
  SNDivisor r;
  r.d = torch::where(clamped, torch::clamp_min(sigma, 1.0), sigma);
  r.scale = torch::where(clamped, sigma.ge(1.0), true).to(sigma.scalar_type()) / (r.d * r.d);
  return r;
}

torch::Tensor sn_divide(const torch::Tensor& weight, const torch::Tensor& d, const torch::Tensor& u,
                        const torch::Tensor& v, const torch::Tensor& scale, at::ScalarType out) {
  return SpectralDivide::apply(weight, d, u, v, scale, out);
}

}  // namespace hamgan
