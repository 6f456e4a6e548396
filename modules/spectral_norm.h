#pragma once
// Spectral normalisation as layers (docs/modules.md, "Spectral normalisation"): a persistent u
// buffer (N(0,1) init), one power iteration per training forward
//   v = l2norm(Wᵀu), u = l2norm(W v), σ = uᵀ W v   (u, v are constants for autograd)
// and u frozen in eval. The weight matrix is W viewed as (out, in·kh·kw).
#include <torch/torch.h>

namespace hamgan {

enum class SNMode {
  kClamp,  // W / max(1, σ): snconv2d, snlinear, sn_embedding
  kExact,  // W / σ: sn_conv1x1 (attention convs, Hamburger breads)
};

// Returns W normalised by its spectral norm estimate. When `update` is true
// the power iteration runs once and `u` is overwritten in place. With
// `in_compute_dtype`, under autocast W/σ is written once in autocast's dtype
// (what the convolution or matrix product it feeds would cast it to anyway),
// not in float32 and cast again at every forward.
torch::Tensor spectral_normalize(const torch::Tensor& weight, torch::Tensor& u, SNMode mode, bool update,
                                 double eps = 1e-12, bool in_compute_dtype = false);

// The dtype W/σ is written in for a layer whose weight feeds an autocast op: autocast's
// dtype for the weight's device where autocast is on there, else the weight's own.
at::ScalarType sn_compute_dtype(const torch::Tensor& weight);

// A layer's share in a SpectralNormGroup (modules/spectral_norm_group.h): its
// weight and u, and the slot where its normalised weight for the next forward
// waits. A layer takes a waiting weight once; with none it normalises itself.
struct SNSlot {
  torch::Tensor* weight;
  torch::Tensor* u;
  SNMode mode;
  torch::Tensor* prepared;
  bool in_compute_dtype;  // the weight feeds a convolution or matrix product (not an embedding lookup)
};

struct SNConv2dOptions {
  SNConv2dOptions(int64_t in, int64_t out, int64_t kernel) : in_channels_(in), out_channels_(out), kernel_size_(kernel) {}
  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(int64_t, kernel_size);
  TORCH_ARG(int64_t, padding) = -1;  // -1: 'same' (kernel_size / 2)
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(SNMode, mode) = SNMode::kClamp;
};

class SNConv2dImpl : public torch::nn::Module {
 public:
  explicit SNConv2dImpl(const SNConv2dOptions& options);
  torch::Tensor forward(const torch::Tensor& x);
  // A 3×3 convolution with the resampling folded in (modules/resample_conv.h): of x upsampled ×2
  // (nearest), and pooled 2×2 (average) after it.
  torch::Tensor forward_upsampled(const torch::Tensor& x);
  torch::Tensor forward_pooled(const torch::Tensor& x);
  torch::Tensor normalized_weight();  // runs the power iteration when training
  void reset_parameters();
  SNSlot slot() { return {&weight, &u, options.mode(), &prepared, true}; }
  SNConv2dOptions options;
  torch::Tensor weight, bias, u, prepared;
};
TORCH_MODULE(SNConv2d);

class SNLinearImpl : public torch::nn::Module {
 public:
  SNLinearImpl(int64_t in_features, int64_t out_features, bool bias = true, SNMode mode = SNMode::kClamp);
  torch::Tensor forward(const torch::Tensor& x);
  void reset_parameters();
  SNSlot slot() { return {&weight, &u, mode, &prepared, true}; }
  int64_t in_features, out_features;
  SNMode mode;
  torch::Tensor weight, bias, u, prepared;
};
TORCH_MODULE(SNLinear);

// Class embedding for the projection discriminator; normalised via its
// transpose (embedding_dim × num_embeddings), which has the same singular values.
class SNEmbeddingImpl : public torch::nn::Module {
 public:
  SNEmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim, SNMode mode = SNMode::kClamp);
  torch::Tensor forward(const torch::Tensor& labels);
  void reset_parameters();
  SNSlot slot() { return {&weight, &u, mode, &prepared, false}; }
  int64_t num_embeddings, embedding_dim;
  SNMode mode;
  torch::Tensor weight, u, prepared;
};
TORCH_MODULE(SNEmbedding);

// Glorot/Xavier-uniform weights and zero biases, the TF-GAN default (docs/models.md, "Initialisation").
void xavier_uniform_init(torch::Tensor& weight, int64_t fan_in, int64_t fan_out);

}  // namespace hamgan
