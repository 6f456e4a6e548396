#pragma once
// LibTorch's Adam with its update in one fused call (at::_fused_adam_: one
// multi-tensor kernel per group of parameters on CUDA, one parallel loop on the
// CPU) instead of about eight kernels per parameter tensor. The moments stay in
// LibTorch's AdamParamState, so checkpoints read and write them as before; the
// step count lives on the device (one float32 scalar shared by all parameters,
// which always update together); the state's own count follows it on the host
// for plain steps, and is copied from the device before a save after steps the
// device may have skipped.
// The arithmetic is PyTorch's own Adam (torch.optim.Adam(fused=True)).
#include <torch/torch.h>

#include <vector>

namespace hamgan {

class FusedAdam : public torch::optim::Adam {
 public:
  FusedAdam(const std::vector<torch::Tensor>& params, const torch::optim::AdamOptions& options);

  // One update of every parameter that has a gradient.
  torch::Tensor step(LossClosure closure = nullptr) override;
  // The same, skipped entirely (parameters, moments and step count) where
  // `skip`, a float32 scalar on the parameters' device, is 1; no host read.
  void step_unless(const torch::Tensor& skip);

  // The device step count written into every parameter's state (a host read: before a checkpoint).
  void store_steps();
  // After the state was loaded: the device step count taken from it.
  void load_steps();

 private:
  void update(const c10::optional<torch::Tensor>& skip);
  torch::Tensor steps_;  // completed updates; undefined until the first
};

}  // namespace hamgan
