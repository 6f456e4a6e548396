#pragma once
// Zero-centred gradient penalties on the discriminator's inputs (docs/recipe.md, "Gradient penalties"):
//   R1 = γ₁/2 · E_real ‖∇ₓD(x)‖²   (Mescheder et al. 2018, "Which Training Methods for GANs do actually
//                                   Converge?"), at the real images;
//   R2 = γ₂/2 · E_fake ‖∇ₓD(x)‖²   (the same at the generated images, as R3GAN, Huang et al. 2024,
//                                   pairs with the relativistic loss).
// Intended use in D's update, from the same D call that gives the adversarial loss:
//   real = real.detach().requires_grad_(true);  fake = fake.detach().requires_grad_(true);
//   logits = D(cat(real, fake), labels);        // any augmentation in between stays differentiable
//   auto norms = input_gradient_sq_norms(logits, {real, fake});
//   loss += r1_gamma / 2 · reg_every · norms[0].mean() + r2_gamma / 2 · reg_every · norms[1].mean();
// with the penalties added only on every reg_every-th D update, scaled by reg_every to keep their
// weight (StyleGAN2's lazy regularisation; reg_every 1 = every update). Backward through that loss
// then reaches D's parameters through the second-order terms: every layer and context block of D
// has a differentiable backward, including the fused ones (spectral norm's division and the CPU NMF
// kernel switch to ATen ops when the backward pass builds a graph), so D's forward needs no mode.
#include <torch/torch.h>

#include <vector>

namespace hamgan {

// For each tensor in `inputs` (N, ...), created with requires_grad and used to compute `logits`:
// ‖∂(Σ logits)/∂x_i‖² per image i, summed over all but the first dimension, shape (N). Since D scores
// each image on its own (no batch statistics), the gradient of the summed logits with respect to
// image i is the gradient of D(x_i). The graph is kept (create_graph), so a loss built from the
// result backpropagates into D's parameters, and `logits` can still be backpropagated as usual.
// The gradient is widened to float32 before squaring (bf16 under autocast), so the norms are
// float32 (float64 for float64 inputs). An input that does not require grad, or that `logits`
// does not depend on, throws ModelError naming it.
std::vector<torch::Tensor> input_gradient_sq_norms(const torch::Tensor& logits,
                                                   const std::vector<torch::Tensor>& inputs);
// The same for one input tensor.
torch::Tensor input_gradient_sq_norms(const torch::Tensor& logits, const torch::Tensor& images);

}  // namespace hamgan
