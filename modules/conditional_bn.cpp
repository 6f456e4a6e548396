// Conditional batch norm as TF-GAN's tfgan.tpu.batch_norm (docs/modules.md, "Conditional batch norm").
#include "modules/conditional_bn.h"

#include "core/errors.h"
#include "modules/fp32_region.h"
#include "modules/label_range.h"

namespace hamgan {

ConditionalBatchNormImpl::ConditionalBatchNormImpl(const ConditionalBatchNormOptions& options_) : options(options_) {
  const auto c = options.channels(), k = options.num_classes();
  if (c <= 0 || k < 0)
    throw ModelError("ConditionalBatchNorm: channels must be positive and num_classes >= 0 (got channels=" +
                     std::to_string(c) + ", num_classes=" + std::to_string(k) + ")");
  const int64_t rows = k > 0 ? k : 1;
  // Per-class tables gathered by label: γ init 1 used directly (not 1+γ), β init 0.
  gain = register_parameter("gain", torch::ones({rows, c}));
  bias = register_parameter("bias", torch::zeros({rows, c}));
  // Moving statistics: mean 0, var 1, not zero-debiased.
  running_mean = register_buffer("running_mean", torch::zeros({c}));
  running_var = register_buffer("running_var", torch::ones({c}));
}

torch::Tensor ConditionalBatchNormImpl::forward(const torch::Tensor& x_in, const torch::Tensor& labels) {
  // Statistics in float32 under autocast (a bf16 variance loses the small ones); a bf16 input stays
  // bf16 on the paths that take float32 statistics of it without a float32 copy of the whole tensor.
  Fp32Region fp32;
  const bool reduced = is_reduced_float(x_in);
  const bool synced = stats_sync && stats_sync->world_size() > 1;
  const torch::Tensor x = is_training() && synced ? to_fp32_if_reduced(x_in) : x_in;
  const auto c = options.channels(), k = options.num_classes();
  TORCH_CHECK(x.dim() == 4 && x.size(1) == c, "ConditionalBatchNorm: expected (N, ", c, ", H, W), got ", x.sizes());
  torch::Tensor g, b;  // (N or 1, C, 1, 1)
  if (k > 0) {
    if (!labels.defined() || labels.dim() != 1 || labels.size(0) != x.size(0) ||
        labels.scalar_type() != torch::kLong)
      throw ModelError("ConditionalBatchNorm: class-conditional BN needs int64 labels of shape (" +
                       std::to_string(x.size(0)) + ")");
    check_label_range(labels, k, "ConditionalBatchNorm");
    g = gain.index_select(0, labels).view({-1, c, 1, 1});
    b = bias.index_select(0, labels).view({-1, c, 1, 1});
  } else {
    g = gain.view({1, c, 1, 1});
    b = bias.view({1, c, 1, 1});
  }

  if (is_training() && !synced) {
    const torch::Tensor normalised = normalise_local_batch(x);
    // A reduced-precision result is written once, from float32 arithmetic on the small gain and bias.
    if (reduced) return torch::addcmul(b.to(x.scalar_type()), normalised, g.to(x.scalar_type()));
    return torch::addcmul(b, normalised, g);
  }
  torch::Tensor mean, var;  // (C)
  if (is_training()) {
    // Data-parallel sync BN: batch mean and biased variance over every rank's (N, H, W).
    // The example count rides along with the sums, so ranks may hold batches of different sizes.
    const auto count = torch::full({1}, static_cast<double>(x.numel() / c), x.options());
    const torch::Tensor sums = differentiable_all_reduce_sum(*stats_sync, torch::cat({x.sum({0, 2, 3}), count}));
    const torch::Tensor n = sums.slice(0, c, c + 1);
    mean = sums.slice(0, 0, c) / n;
    const torch::Tensor centred = x - mean.view({1, c, 1, 1});
    var = differentiable_all_reduce_sum(*stats_sync, centred.square().sum({0, 2, 3})) / n;
    update_moving_statistics(mean, var);
  } else {
    mean = running_mean;
    var = running_var;
  }
  const auto scale = torch::rsqrt(var + options.eps()).view({1, c, 1, 1});
  if (reduced && !is_training()) {  // x · (scale g) + (b − mean scale g): one pass over the bf16 map
    const torch::Tensor a = scale * g;
    return torch::addcmul((b - mean.view({1, c, 1, 1}) * a).to(x.scalar_type()), x, a.to(x.scalar_type()));
  }
  return (x - mean.view({1, c, 1, 1})) * scale * g + b;
}

torch::Tensor ConditionalBatchNormImpl::normalise_local_batch(const torch::Tensor& x) {
  // ATen's fused batch norm normalises with the batch mean and the *biased*
  // variance in one kernel, and its backward is one kernel too: 2-4x faster on
  // the CPU than the composite below. The moving averages are fed the same
  // biased variance (TF's standardize_batch), recovered from its 1/sqrt(var + eps).
  // A float32 weight makes it keep float32 statistics of a bf16 input (without
  // one the CPU kernel returns them in bf16); a float32 input takes none, as before.
  const torch::Tensor weight = is_reduced_float(x) ? float32_unit_weight(x) : torch::Tensor();
  const auto [normalised, batch_mean, inv_std] =
      torch::native_batch_norm(x, weight, {}, {}, {}, /*training=*/true, 0.0, options.eps());
  update_moving_statistics(batch_mean, inv_std.pow(-2) - options.eps());
  return normalised;
}

const torch::Tensor& ConditionalBatchNormImpl::float32_unit_weight(const torch::Tensor& x) {
  if (!unit_weight_.defined() || unit_weight_.device() != x.device())
    unit_weight_ = torch::ones({options.channels()}, x.options().dtype(torch::kFloat));
  return unit_weight_;
}

void ConditionalBatchNormImpl::update_moving_statistics(const torch::Tensor& mean, const torch::Tensor& var) {
  torch::NoGradGuard no_grad;
  const double m = options.momentum();
  // Two multi-tensor ops for both buffers (one launch each on CUDA), the same arithmetic as mul_ then add_.
  const std::vector<torch::Tensor> moving = {running_mean, running_var};
  at::_foreach_mul_(moving, 1.0 - m);
  at::_foreach_add_(moving, std::vector<torch::Tensor>{mean.detach(), var.detach()}, m);
}

LocalBatchStatsScope::LocalBatchStatsScope(torch::nn::Module& module) {
  for (const auto& m : module.modules(/*include_self=*/true))
    if (auto bn = std::dynamic_pointer_cast<ConditionalBatchNormImpl>(m))
      if (bn->stats_sync) paused_.emplace_back(bn, std::exchange(bn->stats_sync, nullptr));
}

LocalBatchStatsScope::~LocalBatchStatsScope() {
  for (auto& [bn, sync] : paused_) bn->stats_sync = sync;
}

}  // namespace hamgan
