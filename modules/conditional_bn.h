#pragma once
// Batch norm with per-class gain and bias tables (docs/modules.md, "Conditional batch norm"):
// γ = gain[y] (init 1, used directly), β = bias[y] (init 0), batch statistics
// with biased variance over (N, H, W) in training, moving statistics in eval,
// eps 1e-3, moving-average decay 0.999 (PyTorch momentum 0.001).
// num_classes == 0 gives plain BN with a single γ/β vector (G's final BN).
#include <torch/torch.h>

#include <memory>
#include <utility>
#include <vector>

#include "core/distributed/communicator.h"

namespace hamgan {

struct ConditionalBatchNormOptions {
  ConditionalBatchNormOptions(int64_t channels, int64_t num_classes) : channels_(channels), num_classes_(num_classes) {}
  TORCH_ARG(int64_t, channels);
  TORCH_ARG(int64_t, num_classes);
  TORCH_ARG(double, eps) = 1e-3;
  TORCH_ARG(double, momentum) = 1e-3;
};

class ConditionalBatchNormImpl : public torch::nn::Module {
 public:
  explicit ConditionalBatchNormImpl(const ConditionalBatchNormOptions& options);
  // x: (N, C, H, W); labels: (N,) int64, ignored (may be undefined) when num_classes == 0.
  // The result has x's dtype: a bf16 activation is normalised as bf16 with float32 statistics.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& labels = {});
  ConditionalBatchNormOptions options;
  torch::Tensor gain, bias;                  // (num_classes or 1, C)
  torch::Tensor running_mean, running_var;  // buffers, (C)
  // Set for synchronised BN in data-parallel training: batch statistics in
  // training mode are taken over every rank's batch (mean, then the variance
  // about it, each one all-reduce that autograd differentiates through).
  std::shared_ptr<Communicator> stats_sync;

 private:
  void update_moving_statistics(const torch::Tensor& mean, const torch::Tensor& var);
  // x normalised by its own batch statistics on one rank; updates the moving ones.
  torch::Tensor normalise_local_batch(const torch::Tensor& x);
  // float32 ones (C) on x's device: the weight that makes ATen's batch norm keep float32 statistics
  // for a bf16 input (made once per device, not a parameter and not saved).
  const torch::Tensor& float32_unit_weight(const torch::Tensor& x);
  torch::Tensor unit_weight_;
};
TORCH_MODULE(ConditionalBatchNorm);

// Within its scope, every conditional BN layer of `module` takes statistics
// from this rank's batch alone: for work that one rank does by itself (a
// sample grid from the training G), which must not wait on the other ranks.
class LocalBatchStatsScope {
 public:
  explicit LocalBatchStatsScope(torch::nn::Module& module);
  ~LocalBatchStatsScope();
  LocalBatchStatsScope(const LocalBatchStatsScope&) = delete;
  LocalBatchStatsScope& operator=(const LocalBatchStatsScope&) = delete;

 private:
  std::vector<std::pair<std::shared_ptr<ConditionalBatchNormImpl>, std::shared_ptr<Communicator>>> paused_;
};

}  // namespace hamgan
