#pragma once
// The SAGAN self-attention block and YLG's 8-head local attention
// (docs/modules.md, `sa` and `ylg`). Both share the four bias-free 1×1 convs
// with exact spectral normalisation W/σ and the σ-residual y = x + σ·o.
#include <torch/torch.h>

#include <vector>

#include "modules/context_block.h"
#include "modules/spectral_norm.h"
#include "modules/ylg_blocked.h"

namespace hamgan {

// Returns `channels` if it is a positive multiple of `multiple`, else throws ModelError.
int64_t checked_attention_channels(int64_t channels, int64_t multiple, const char* block);

class AttentionBaseImpl : public ContextBlockImpl {
 public:
  AttentionBaseImpl(int64_t channels, int64_t qk_channels);
  int64_t channels;  // C
  SNConv2d theta{nullptr}, phi{nullptr}, g{nullptr}, o{nullptr};  // C→C/8, C→C/8, C→C/2, C/2→C
  torch::Tensor sigma;                                            // scalar, init 0

 protected:
  struct Projections {
    torch::Tensor q;  // (B, C/8, H·W)
    torch::Tensor k;  // (B, C/8, H·W/4), 2×2 max-pooled; (B, C/8, H·W) unpooled
    torch::Tensor v;  // (B, C/2, H·W/4), 2×2 max-pooled; (B, C/2, H·W) unpooled
  };
  // Checks x is (B, C, H, W) (with even H, W when pooled), then applies θ, φ, g (+ pooling).
  Projections project(const torch::Tensor& x, const char* block, bool pooled = true);
  // x + σ · o(attended), attended: (B, C/2, H, W).
  torch::Tensor finish(const torch::Tensor& x, const torch::Tensor& attended);
};

// pooled = true: SAGAN's block ("sa"), keys and values 2×2 max-pooled (N/4 keys).
// pooled = false: the plain non-local product over all N keys ("sa_dense"), any H, W.
class SelfAttentionImpl : public AttentionBaseImpl {
 public:
  explicit SelfAttentionImpl(int64_t channels, bool pooled = true);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& labels = {}) override;
  std::string describe() const override;
  bool pooled;
};

// Registry factory for "sa_dense": SelfAttentionImpl without the key/value pooling, and its MACs.
ContextBlock make_sa_dense_block(const ContextOptions& options, int64_t channels);
int64_t sa_dense_block_macs(const ContextOptions& options, const std::vector<int64_t>& shape);

// MACs of one forward on `shape` (N, C, H, W) of the shared convs and the dense attention products:
// θ, φ (C→C/8), g (C→C/2), o (C/2→C) over n = H·W positions, logits (n × keys × C/8) and A·g
// (n × keys × C/2), keys = (H/2)(W/2) after the 2×2 pooling, n without it.
int64_t attention_macs(const std::vector<int64_t>& shape, bool pooled);

// Implementation of the YLG attention product; both give the same result
// (up to exp(−1000) terms, see docs/modules.md).
enum class YlgKernel {
  kDense,   // full (N × N/4) logits per head plus the −1000 mask bias, as the reference
  kGather,   // per-query padded lists of allowed keys (≤ 17 per query at 32×32), gathered
  kBlocked,  // pattern structure: block-local matmuls (floor heads), shared summary keys (repetitive heads)
};

class YlgAttentionImpl : public AttentionBaseImpl {
 public:
  static constexpr int64_t kHeads = 8;  // hard-coded in the reference (docs/modules.md, `ylg`)
  explicit YlgAttentionImpl(int64_t channels, YlgKernel kernel = YlgKernel::kBlocked);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& labels = {}) override;
  std::string describe() const override;
  YlgKernel kernel;

 private:
  // Per-size constants, rebuilt when H, W, device or dtype change.
  struct Cache {
    int64_t height = -1, width = -1;
    torch::Tensor dense_bias;  // (8, N, N/4): 0 allowed, −1000 disallowed
    torch::Tensor key_index;   // (8·N·K) flat index into the (8·N/4) head-major keys
    torch::Tensor key_bias;    // (8, N, 1, K): 0 valid slot, −inf padding
    int64_t max_keys = 0;      // K
    YlgBlockedPlan plan;       // kBlocked constants
  } cache_;
  void prepare(const torch::Tensor& x);
};

}  // namespace hamgan
