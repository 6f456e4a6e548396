#pragma once
// The seam for data-parallel training: the step functions call before_backward
// and all_reduce_grads around each backward pass and before the optimiser step, and the loop asks
// any() whether a stop or failure on some rank concerns every rank. The
// single-process run uses NoSync, which changes nothing.
#include <torch/torch.h>

namespace hamgan {

class GradSync {
 public:
  virtual ~GradSync() = default;
  // Called before each backward pass of `module`, so that gradients can be
  // reduced in buckets while the backward pass still runs.
  virtual void before_backward(torch::nn::Module& module) {}
  // Averages the gradients of `module`'s parameters across ranks.
  virtual void all_reduce_grads(torch::nn::Module& module) = 0;
  // True when `local` is true on any rank.
  virtual bool any(bool local) = 0;
  virtual int64_t rank() const = 0;
  virtual int64_t world_size() const = 0;
};

class NoSync final : public GradSync {
 public:
  void all_reduce_grads(torch::nn::Module&) override {}
  bool any(bool local) override { return local; }
  int64_t rank() const override { return 0; }
  int64_t world_size() const override { return 1; }
};

}  // namespace hamgan
