#pragma once
// Exponential moving average of the generator's weights, BigGAN-PyTorch style
// (docs/training.md, "BigGAN-PyTorch's EMA"): until `start` G updates the
// average is a plain copy, afterwards every floating-point parameter and
// buffer (BN running statistics, spectral-norm u) follows
//   ema = decay * ema + (1 - decay) * current,
// and integer buffers (num_batches_tracked) are copied.
#include <torch/torch.h>

namespace hamgan {

// `source` and `target` must have the same structure (same parameter and buffer names).
void ema_update(const torch::nn::Module& source, torch::nn::Module& target, double decay);

// The decay used after `g_updates` generator updates: 0 (copy) before `start`, `decay` from then on.
double ema_decay_at(int64_t g_updates, int64_t start, double decay);

}  // namespace hamgan
