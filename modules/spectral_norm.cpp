// Spectral normalisation, following TF-GAN's spectral_normalization.py
// (docs/modules.md, "Spectral normalisation").
#include "modules/spectral_norm.h"

#include <cmath>
#include <utility>

#include "core/errors.h"
#include "modules/fp32_region.h"
#include "modules/label_range.h"
#include "modules/resample_conv.h"
#include "modules/spectral_divide.h"

namespace hamgan {
namespace {

// tf.math.l2_normalize: x / sqrt(max(Σx², eps)) — the epsilon bounds the
// squared norm, not the norm.
torch::Tensor l2_normalize(const torch::Tensor& x, double eps) {
  return x * torch::rsqrt(torch::clamp_min(torch::linalg_vector_norm(x).square(), eps));
}

torch::Tensor make_u(int64_t rows) { return torch::randn({rows}); }

// The weight a SpectralNormGroup prepared for this forward, taken once, else the layer's own normalisation.
torch::Tensor prepared_or(torch::Tensor& prepared, const torch::Tensor& weight, torch::Tensor& u, SNMode mode,
                          bool update, bool in_compute_dtype = true) {
  if (prepared.defined()) return std::exchange(prepared, torch::Tensor());
  return spectral_normalize(weight, u, mode, update, 1e-12, in_compute_dtype);
}

}  // namespace

at::ScalarType sn_compute_dtype(const torch::Tensor& weight) {
  const auto device = weight.device().type();
  if (!at::autocast::is_autocast_available(device) || !at::autocast::is_autocast_enabled(device))
    return weight.scalar_type();  // no autocast there (the meta device has none at all)
  return at::autocast::get_autocast_dtype(device);
}

torch::Tensor spectral_normalize(const torch::Tensor& weight, torch::Tensor& u, SNMode mode, bool update,
                                 double eps, bool in_compute_dtype) {
  const at::ScalarType out = in_compute_dtype ? sn_compute_dtype(weight) : weight.scalar_type();
  Fp32Region fp32;  // σ and the power iteration in float32 also under autocast (u is a float32 buffer)
  TORCH_CHECK(weight.dim() >= 2, "spectral_normalize: weight must have >= 2 dims, got ", weight.sizes());
  const auto w = sn_matrix(weight.detach());  // (out, in·kh·kw), columns in the weight's memory order
  TORCH_CHECK(u.dim() == 1 && u.size(0) == w.size(0), "spectral_normalize: u must be (", w.size(0), "), got ",
              u.sizes());
  // One power iteration from the stored u. TF runs it on every call and
  // writes u back only when training; u and v are constants for autograd, so
  // σ's gradient is u vᵀ, and σ = uᵀWv = ‖Wv‖ comes out of the iteration. The
  // same arithmetic as SpectralNormGroup's, which must give the same numbers.
  torch::Tensor v, u_new;
  SNDivisor divisor;
  {
    torch::NoGradGuard no_grad;
    v = l2_normalize(torch::mv(w.t(), u), eps);  // (in)
    const torch::Tensor wv = torch::mv(w, v);
    const torch::Tensor sum_squares = torch::linalg_vector_norm(wv).square();
    const torch::Tensor factor = torch::rsqrt(torch::clamp_min(sum_squares, eps));
    u_new = wv * factor;  // (out)
    if (update) u.copy_(u_new);
    const torch::Tensor sigma = sum_squares * factor;
    divisor = sn_divisor(sigma, torch::full({}, mode == SNMode::kClamp, sigma.options().dtype(torch::kBool)));
  }
  return sn_divide(weight, divisor.d, u_new, v, divisor.scale, out);
}

void xavier_uniform_init(torch::Tensor& weight, int64_t fan_in, int64_t fan_out) {
  // VarianceScaling(scale 1, fan_avg, uniform): U(−b, b), b = √(6 / (fan_in + fan_out)).
  torch::NoGradGuard no_grad;
  const double bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  weight.uniform_(-bound, bound);
}

// ---------------------------------------------------------------- SNConv2d

SNConv2dImpl::SNConv2dImpl(const SNConv2dOptions& options_) : options(options_) {
  const auto k = options.kernel_size();
  if (options.in_channels() <= 0 || options.out_channels() <= 0 || k <= 0)
    throw ModelError("SNConv2d: channels and kernel size must be positive (got in=" +
                     std::to_string(options.in_channels()) + ", out=" + std::to_string(options.out_channels()) +
                     ", k=" + std::to_string(k) + ")");
  weight = register_parameter("weight", torch::empty({options.out_channels(), options.in_channels(), k, k}));
  if (options.bias()) bias = register_parameter("bias", torch::empty({options.out_channels()}));
  u = register_buffer("u", make_u(options.out_channels()));
  reset_parameters();
}

void SNConv2dImpl::reset_parameters() {
  const auto k2 = options.kernel_size() * options.kernel_size();
  xavier_uniform_init(weight, options.in_channels() * k2, options.out_channels() * k2);
  torch::NoGradGuard no_grad;
  if (bias.defined()) bias.zero_();
  u.normal_();
}

torch::Tensor SNConv2dImpl::normalized_weight() {
  return prepared_or(prepared, weight, u, options.mode(), is_training());
}

torch::Tensor SNConv2dImpl::forward(const torch::Tensor& x) {
  TORCH_CHECK(x.dim() == 4 && x.size(1) == options.in_channels(), "SNConv2d: expected (N, ", options.in_channels(),
              ", H, W), got ", x.sizes());
  const int64_t pad = options.padding() < 0 ? options.kernel_size() / 2 : options.padding();
  return torch::conv2d(x, normalized_weight(), bias, /*stride=*/1, /*padding=*/pad);
}

torch::Tensor SNConv2dImpl::forward_upsampled(const torch::Tensor& x) {
  TORCH_CHECK(options.kernel_size() == 3, "SNConv2d: folded upsampling needs a 3x3 kernel");
  return upsample_conv3x3(x, normalized_weight(), bias);
}

torch::Tensor SNConv2dImpl::forward_pooled(const torch::Tensor& x) {
  TORCH_CHECK(options.kernel_size() == 3, "SNConv2d: folded pooling needs a 3x3 kernel");
  return conv3x3_avgpool(x, normalized_weight(), bias);
}

// ---------------------------------------------------------------- SNLinear

SNLinearImpl::SNLinearImpl(int64_t in_features_, int64_t out_features_, bool with_bias, SNMode mode_)
    : in_features(in_features_), out_features(out_features_), mode(mode_) {
  if (in_features <= 0 || out_features <= 0)
    throw ModelError("SNLinear: features must be positive (got in=" + std::to_string(in_features) +
                     ", out=" + std::to_string(out_features) + ")");
  weight = register_parameter("weight", torch::empty({out_features, in_features}));
  if (with_bias) bias = register_parameter("bias", torch::empty({out_features}));
  u = register_buffer("u", make_u(out_features));
  reset_parameters();
}

void SNLinearImpl::reset_parameters() {
  xavier_uniform_init(weight, in_features, out_features);
  torch::NoGradGuard no_grad;
  if (bias.defined()) bias.zero_();
  u.normal_();
}

torch::Tensor SNLinearImpl::forward(const torch::Tensor& x) {
  TORCH_CHECK(x.dim() >= 1 && x.size(-1) == in_features, "SNLinear: expected (..., ", in_features, "), got ",
              x.sizes());
  return torch::nn::functional::linear(x, prepared_or(prepared, weight, u, mode, is_training()), bias);
}

// ---------------------------------------------------------------- SNEmbedding

SNEmbeddingImpl::SNEmbeddingImpl(int64_t num_embeddings_, int64_t embedding_dim_, SNMode mode_)
    : num_embeddings(num_embeddings_), embedding_dim(embedding_dim_), mode(mode_) {
  if (num_embeddings <= 0 || embedding_dim <= 0)
    throw ModelError("SNEmbedding: sizes must be positive (got classes=" + std::to_string(num_embeddings) +
                     ", dim=" + std::to_string(embedding_dim) + ")");
  weight = register_parameter("weight", torch::empty({num_embeddings, embedding_dim}));
  // Viewed as (out, in) = (classes × dim), so u has one entry per class. TF
  // normalises the transposed table (dim × classes): its u has one entry per
  // embedding dimension and its v one per class, so our u is TF's v. Both run
  // the same power iteration, storing opposite ends of it; σ and the normalised
  // table agree once it has converged.
  u = register_buffer("u", make_u(num_embeddings));
  reset_parameters();
}

void SNEmbeddingImpl::reset_parameters() {
  xavier_uniform_init(weight, num_embeddings, embedding_dim);
  torch::NoGradGuard no_grad;
  u.normal_();
}

torch::Tensor SNEmbeddingImpl::forward(const torch::Tensor& labels) {
  TORCH_CHECK(labels.scalar_type() == torch::kLong, "SNEmbedding: labels must be int64, got ", labels.scalar_type());
  check_label_range(labels, num_embeddings, "SNEmbedding");
  return torch::embedding(prepared_or(prepared, weight, u, mode, is_training(), /*in_compute_dtype=*/false), labels);
}

}  // namespace hamgan
