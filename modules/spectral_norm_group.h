#pragma once
// Spectral normalisation of all the layers of a network in one pass, before its
// forward (docs/modules.md, "Spectral normalisation"): the same power iteration
// as spectral_normalize for every SNConv2d, SNLinear and SNEmbedding below the
// network, with the per-layer work cut to its two matrix-vector products and
// one division. The normalisations of the vectors, the u updates and σ are
// multi-tensor or whole-group ops; σ comes out of the iteration itself
// (σ = uᵀWv = ‖Wv‖), and W/σ's backward is one custom node per layer,
//   ∂L/∂W = G/d − [σ counts] (⟨G, W⟩/d²) u vᵀ,   d = max(1, σ) or σ,
// where σ counts for W/σ always and for W/max(1, σ) when σ ≥ 1. Each layer's
// weight waits in its SNSlot and is taken by its next forward.
#include <torch/torch.h>

#include <vector>

#include "modules/spectral_norm.h"

namespace hamgan {

class SpectralNormGroup {
 public:
  // The spectral-norm layers below `net`, in module order.
  explicit SpectralNormGroup(torch::nn::Module& net);
  // One power iteration for every layer (u written back when `update`), each
  // normalised weight left in its slot.
  void normalize(bool update);
  // Drops weights no forward took (a forward that used only some layers).
  void release();
  size_t size() const { return slots_.size(); }

 private:
  std::vector<std::shared_ptr<torch::nn::Module>> layers_;  // keeps the slots' tensors alive
  std::vector<SNSlot> slots_;
  // Per device: which layer each entry of the concatenated column and row vectors belongs to.
  torch::Tensor column_owner_, row_owner_, clamped_;
  std::vector<int64_t> columns_, rows_;
};

// Normalises on construction, releases what was not taken on destruction: the
// span of one network forward. A null group (no layers) does nothing.
class SpectralNormScope {
 public:
  SpectralNormScope(SpectralNormGroup* group, bool update) : group_(group) {
    if (group_ != nullptr) group_->normalize(update);
  }
  ~SpectralNormScope() {
    if (group_ != nullptr) group_->release();
  }
  SpectralNormScope(const SpectralNormScope&) = delete;
  SpectralNormScope& operator=(const SpectralNormScope&) = delete;

 private:
  SpectralNormGroup* group_;
};

}  // namespace hamgan
