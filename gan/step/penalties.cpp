// Per-image squared input-gradient norms for R1 and R2; see penalties.h.
#include "gan/step/penalties.h"

#include <string>

#include "core/errors.h"

namespace hamgan {
namespace {

void check_inputs(const torch::Tensor& logits, const std::vector<torch::Tensor>& inputs) {
  if (!logits.defined() || !logits.requires_grad())
    throw ModelError("gradient penalty: the logits carry no graph; compute them from the inputs with grad mode on");
  if (inputs.empty()) throw ModelError("gradient penalty: no input images given");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const torch::Tensor& x = inputs[i];
    const std::string which = "input " + std::to_string(i);
    if (!x.defined() || x.dim() < 2)
      throw ModelError("gradient penalty: " + which + " is not a batch (N, ...) of images");
    if (!x.requires_grad())
      throw ModelError("gradient penalty: " + which + " does not require grad; create it with "
                       "x.detach().requires_grad_(true) before D's forward");
  }
}

}  // namespace

std::vector<torch::Tensor> input_gradient_sq_norms(const torch::Tensor& logits,
                                                   const std::vector<torch::Tensor>& inputs) {
  check_inputs(logits, inputs);
  // One backward of the summed logits, with a graph, gives every image's own gradient at once.
  const torch::autograd::variable_list grads =
      torch::autograd::grad({logits.sum()}, inputs, /*grad_outputs=*/{}, /*retain_graph=*/true,
                            /*create_graph=*/true, /*allow_unused=*/true);
  std::vector<torch::Tensor> norms;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined())
      throw ModelError("gradient penalty: the logits do not depend on input " + std::to_string(i) +
                       "; pass the tensors D's forward was computed from");
    // Widened before squaring: a bf16 square sums a few hundred values with an 8-bit mantissa.
    const auto s = grads[i].scalar_type();
    const torch::Tensor g = s == torch::kBFloat16 || s == torch::kHalf ? grads[i].to(torch::kFloat) : grads[i];
    norms.push_back(g.square().flatten(1).sum(1));
  }
  return norms;
}

torch::Tensor input_gradient_sq_norms(const torch::Tensor& logits, const torch::Tensor& images) {
  return input_gradient_sq_norms(logits, std::vector<torch::Tensor>{images}).front();
}

}  // namespace hamgan
