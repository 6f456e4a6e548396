#pragma once
// Exponential moving average of the generator's weights, BigGAN-PyTorch style
// (docs/training.md, "BigGAN-PyTorch's EMA"): until `start` G updates the
// average is a plain copy, afterwards every floating-point parameter and
// buffer (BN running statistics, spectral-norm u) follows
//   ema = decay * ema + (1 - decay) * current   (as ema += (1 - decay)(current - ema)),
// and integer buffers (num_batches_tracked) are copied.
#include <torch/torch.h>

#include <vector>

namespace hamgan {

// The pairs of tensors of two modules of the same structure, matched by name
// once: each update is then one multi-tensor lerp and one multi-tensor copy
// (a few kernels on CUDA, instead of two per tensor).
class EmaUpdater {
 public:
  // Throws ModelError when the modules differ in structure.
  EmaUpdater(const torch::nn::Module& source, torch::nn::Module& target);
  void update(double decay);  // decay 0: a copy of everything

 private:
  std::vector<torch::Tensor> src_float_, dst_float_, src_other_, dst_other_;
};

// One update without keeping the lists (set-up and tests).
void ema_update(const torch::nn::Module& source, torch::nn::Module& target, double decay);

// The decay used after `g_updates` generator updates: 0 (copy) before `start`, `decay` from then on.
double ema_decay_at(int64_t g_updates, int64_t start, double decay);

}  // namespace hamgan
