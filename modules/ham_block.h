#pragma once
// The Hamburger context block, GAN variant v1 (docs/ham.md, "The block"):
//   lower bread  SNConv1×1(C → d), no bias, W/σ
//   ReLU         (NMF only: its input must be non-negative; the reference CD/VQ have none)
//   ham          K steps of NMF | VQ | CD on X (B, d, n), rank r (ham_decomposition.h)
//   upper bread  SNConv1×1(d → C), no bias, W/σ
//   CBN          per-class γ/β batch norm, G only (num_classes > 0)
//   out          x + σ·(…), σ a learned scalar initialised 0, no final activation
// Here d = C (S = 1 group, as both HamGAN scripts), r defaults to d / 8.
#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "modules/conditional_bn.h"
#include "modules/context_block.h"
#include "modules/ham_decomposition.h"
#include "modules/ham_options.h"
#include "modules/ham_types.h"
#include "modules/spectral_norm.h"

namespace hamgan {

class HamBlockImpl : public ContextBlockImpl {
 public:
  // num_classes > 0 adds class-conditional BN after the upper bread (G).
  HamBlockImpl(const HamOptions& options, int64_t channels, int64_t num_classes = 0);
  // x: (N, C, H, W) -> (N, C, H, W); labels (N,) int64, required when num_classes > 0.
  // Both breads run as batched matmuls with the spectrally normalised weights. Without CBN
  // the upper bread is applied to the factors, W_u X̂ = (W_u D) Cᵀ, so the (d × n)
  // reconstruction is never formed; with CBN it is (BN needs the activations).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& labels = {}) override;
  // The literal layer order with the breads as SNConv2d layers (reconstruction, then the
  // upper conv, then CBN): same result as forward(); the reference it is tested against.
  torch::Tensor forward_reference(const torch::Tensor& x, const torch::Tensor& labels = {});
  std::string describe() const override;
  void pretty_print(std::ostream& stream) const override;

  // The solver settings in the current mode (K = train or eval steps).
  HamSolverOptions solver_options() const;
  // Draw the random bases from `generator` (deterministic tests); nullopt: the global RNG.
  void set_generator(std::optional<at::Generator> generator) { generator_ = std::move(generator); }

  HamOptions options;
  int64_t channels, rank;
  double temperature;
  SNConv2d lower{nullptr}, upper{nullptr};
  ConditionalBatchNorm bn{nullptr};  // null without classes (D)
  torch::Tensor sigma;               // scalar residual gain, init 0
  torch::Tensor online_bases;        // (1, d, r) buffer for init=online, else undefined

 private:
  // lower bread (+ ReLU for NMF) and the decomposition: factors of X (B, d, n).
  // `literal`: the lower bread as its conv layer rather than a batched matmul.
  HamFactors decompose(const torch::Tensor& x, bool literal);
  void check_labels(const torch::Tensor& x, const torch::Tensor& labels) const;
  void online_update(const torch::Tensor& bases);
  std::optional<at::Generator> generator_;
};
TORCH_MODULE(HamBlock);

// Registry factory for the name "ham" (see context_block.h), and its MACs on (N, C, H, W).
ContextBlock make_ham_block(const ContextOptions& options, int64_t channels);
int64_t ham_block_macs(const ContextOptions& options, const std::vector<int64_t>& shape);

}  // namespace hamgan
