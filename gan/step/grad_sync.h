#pragma once
// The seam for data-parallel gradients: the step functions call before_backward
// and all_reduce_grads around each backward pass and before the optimiser step.
// A single process uses NoSync, which changes nothing; a job of several ranks
// BucketedGradSync (the trainer picks one from the communicator).
#include <torch/torch.h>

#include <string>

namespace hamgan {

class GradSync {
 public:
  virtual ~GradSync() = default;
  // Follows the gradients of `module`'s parameters from now on; `name` appears in errors ("D gradients").
  virtual void watch(torch::nn::Module& module, const std::string& name) {}
  // Called before each backward pass of `module`, so that gradients can be
  // reduced in buckets while the backward pass still runs.
  virtual void before_backward(torch::nn::Module& module) {}
  // Averages the gradients of `module`'s parameters across ranks.
  virtual void all_reduce_grads(torch::nn::Module& module) = 0;
  // Sums a device scalar over the ranks in place, ordered before later work on
  // the device without a host wait where the backend allows (NCCL).
  virtual void agree_on_flag(torch::Tensor& flag) {}
  // Sums a device tensor over the ranks in place, the same way; `what` names it in errors.
  virtual void sum_over_ranks(torch::Tensor& t, const std::string& what) {}
};

class NoSync final : public GradSync {
 public:
  void all_reduce_grads(torch::nn::Module&) override {}
};

}  // namespace hamgan
