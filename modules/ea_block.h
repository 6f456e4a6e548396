#pragma once
// External Attention (Guo et al., "Beyond Self-attention: External Attention using Two Linear
// Layers for Visual Tasks", arXiv 2105.02358; official block MenghaoGuo/EANet model_torch.py
// External_attention) adapted to the HamGAN context slot the way ham_block.h adapts the
// segmentation Hamburger (docs/modules.md lists every deviation from the official block):
//   q        SNConv1×1(C → C), no bias, W/σ
//   heads    q split into H contiguous blocks of d = C/H channels
//   M_k      SN matrix (S × d), shared by the heads: logits (S × n) per head
//   softmax  over the n positions, then L1 over the S slots (÷ (1e-9 + Σ_S)), both in float32 or wider
//   M_v      SN matrix (d × S), shared; heads concatenated back to C channels
//   o        SNConv1×1(C → C), no bias, W/σ
//   CBN      per-class γ/β batch norm, G only (num_classes > 0 and ea_cbn)
//   out      x + σ·(…), σ a learned scalar initialised 0, no final ReLU
#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/config_fields.h"
#include "modules/conditional_bn.h"
#include "modules/context_block.h"
#include "modules/spectral_norm.h"

namespace hamgan {

// Config keys ea_memory, ea_heads, ea_cbn (ea_option_table()).
struct EaOptions {
  int64_t memory = 64;  // S, memory slots per head (official k = 64)
  int64_t heads = 1;    // H; C % H == 0, memories shared by the heads
  bool cbn = true;      // class-conditional BN after o when the block is class-conditional (G)
};

const FieldTable<EaOptions>& ea_option_table();
// The same fields as the registry holds them (context_registry.cpp).
std::vector<FieldSpec> ea_block_options();
// The typed options from a block's option values; a bad value throws ConfigError naming its key.
EaOptions parse_ea_options(const ContextOptions& options);
// ContextOptions for the block "ea" carrying `options` (benchmarks and tests).
ContextOptions ea_context_options(const EaOptions& options, int64_t num_classes = 0);

// The attention map of one forward, (B, H, S, n), in the dtype the normalisation ran in.
struct EaAttentionMaps {
  torch::Tensor softmax;     // after the softmax over n: each slot sums to 1 over n
  torch::Tensor normalized;  // after the L1 over S: each position sums to 1 (up to 1e-9) over S
};

class EaBlockImpl : public ContextBlockImpl {
 public:
  // num_classes > 0 with options.cbn adds class-conditional BN after o (G).
  EaBlockImpl(const EaOptions& options, int64_t channels, int64_t num_classes = 0);
  // x: (N, C, H, W) -> (N, C, H, W); labels (N,) int64, required with CBN.
  // One head: the back-to-back linear maps are folded once per forward, M_k·W_q (S × C) and
  // W_o·M_v (C × S), so the C×C convs never touch the n positions. Several heads: batched
  // matmuls in the literal order.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& labels = {}) override;
  // The literal layer order with all four maps as SNConv2d layers; the reference forward() is
  // tested against.
  torch::Tensor forward_reference(const torch::Tensor& x, const torch::Tensor& labels = {});
  // The attention maps for x (inspection and tests); runs the same projections as forward().
  EaAttentionMaps attention_maps(const torch::Tensor& x);
  std::string describe() const override;
  void pretty_print(std::ostream& stream) const override;

  EaOptions options;
  int64_t channels, head_dim;                // C, d = C / H
  SNConv2d query{nullptr}, memory_key{nullptr}, memory_value{nullptr}, out{nullptr};
  ConditionalBatchNorm bn{nullptr};  // null without classes (D) or with ea_cbn = false
  torch::Tensor sigma;               // scalar residual gain, init 0

 private:
  // Throws ModelError for a bad x, or for missing labels with CBN when `labels` is given.
  void check_input(const torch::Tensor& x, const torch::Tensor* labels) const;
};
TORCH_MODULE(EaBlock);

// Softmax over the last dim (n), then division by 1e-9 + the sum over dim −2 (S): the official
// double normalisation. Half and bfloat16 logits are normalised in float32 (1e-9 underflows in
// fp16); the result keeps the dtype it was computed in.
torch::Tensor ea_double_normalize(const torch::Tensor& logits);

// Registry factory for the name "ea" (see context_block.h), and its MACs on (N, C, H, W).
ContextBlock make_ea_block(const ContextOptions& options, int64_t channels);
int64_t ea_block_macs(const ContextOptions& options, const std::vector<int64_t>& shape);

}  // namespace hamgan
