#pragma once
// The NMF one-step gradient's two custom autograd nodes, used by the Hamburger
// block (docs/ham.md, "One-step gradient vs BPTT" and "Memory-lean forward").
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace hamgan {

// ReLU then the NMF one-step code update, C = relu(Z)ᵀD ⊙ S with D and S constants, as one
// autograd node. It takes Z already rectified in place (x_relu) and saves a 1-byte mask instead of
// the 4-byte rectified activations; backward forms the single (B, d, n) gradient and masks it in
// place, in ATen ops that a second backward pass differentiates. Same values and gradient as
// torch::relu followed by ham_final_codes. Returns (B, n, r).
torch::Tensor relu_nmf_codes(const torch::Tensor& x_relu, const torch::Tensor& bases, const torch::Tensor& scale);

// The same node on the CPU for float32 with r ≤ 8 (fused_nmf_takes): ReLU, the K local steps and
// the final code update in one pass per sample (modules/ham_nmf_cpu.h), saving the mask, S and D;
// the backward writes ∂X in X's layout; a backward that builds a graph (create_graph) computes it in
// ATen ops instead, so a second backward pass goes through. Returns {codes (differentiable), bases (constant)}.
std::vector<torch::Tensor> fused_nmf_one_step(const torch::Tensor& x, const torch::Tensor& bases, int64_t steps,
                                              double temperature);

}  // namespace hamgan
