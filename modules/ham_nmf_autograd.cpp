// The NMF one-step gradient's autograd nodes; see ham_nmf_autograd.h.
#include "modules/ham_nmf_autograd.h"

#include "modules/fp32_region.h"
#include "modules/ham_decomposition.h"
#include "modules/ham_nmf_cpu.h"

namespace hamgan {
namespace {

struct ReluNmfCodes : torch::autograd::Function<ReluNmfCodes> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x_relu,
                               const torch::Tensor& bases, const torch::Tensor& scale) {
    ctx->save_for_backward({x_relu.gt(0), bases, scale});
    return torch::bmm(x_relu.transpose(1, 2), bases).mul_(scale);  // (B, n, r)
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& mask = saved[0];
    auto grad_x = torch::bmm(saved[1], (grads[0] * saved[2]).transpose(1, 2));  // (B, d, r)·(B, r, n)
    grad_x.mul_(mask);
    return {grad_x, torch::Tensor(), torch::Tensor()};
  }
};

struct FusedNmfOneStep : torch::autograd::Function<FusedNmfOneStep> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                                                const torch::Tensor& bases, int64_t steps, double temperature) {
    auto r = nmf_one_step_cpu(x, bases, steps, temperature, kHamEps, /*keep_for_backward=*/true);
    ctx->save_for_backward({r.positive, r.scale, r.bases});
    ctx->saved_data["x_dtype"] = static_cast<int64_t>(r.x_dtype);
    ctx->mark_non_differentiable({r.bases});
    return {r.codes, r.bases};
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    // The kernel's result is a constant to autograd. A backward pass that builds a graph (a gradient
    // penalty's create_graph) takes the same formula in ATen ops, linear in the incoming gradient
    // (D, S and the mask are constants of the one-step gradient), so the second pass sees it.
    if (torch::GradMode::is_enabled()) {
      Fp32Region fp32;
      return {torch::bmm(saved[2], (grads[0].to(torch::kFloat) * saved[1]).transpose(1, 2)) * saved[0],
              torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
    const auto x_dtype = static_cast<torch::ScalarType>(ctx->saved_data["x_dtype"].toInt());
    const NmfOneStepCpu state{saved[2], torch::Tensor(), saved[1], saved[0], x_dtype};  // the codes are not needed
    return {nmf_one_step_backward_cpu(grads[0], state), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor relu_nmf_codes(const torch::Tensor& x_relu, const torch::Tensor& bases, const torch::Tensor& scale) {
  return ReluNmfCodes::apply(x_relu, bases, scale);
}

std::vector<torch::Tensor> fused_nmf_one_step(const torch::Tensor& x, const torch::Tensor& bases, int64_t steps,
                                              double temperature) {
  return FusedNmfOneStep::apply(x, bases, steps, temperature);
}

}  // namespace hamgan
