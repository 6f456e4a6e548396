#pragma once
// BigGAN's "standing statistics" (Brock et al. 2019; BigGAN-PyTorch's
// accumulate_standing_stats). G's BN moving averages use TF-GAN's decay
// 0.999 (docs/training.md, "Standing BN statistics"), so after a few thousand steps they still average
// weights G has long left, and G_ema's are an average of those. Before sampling,
// every conditional-BN layer's statistics are recomputed as the plain mean, over
// `batches` forward passes of the current weights (random z, class-balanced
// labels), of the batch statistics training would use. Only the BN layers run in
// training mode: spectral norm's power iteration and the context blocks stay in
// eval mode and keep their state.
#include <torch/torch.h>

#include <vector>

#include "gan/model/generator.h"

namespace hamgan {

// Batches used when a command does not say otherwise (BigGAN-PyTorch uses 16).
constexpr int64_t kDefaultStandingBatches = 16;
// Images per pass, everywhere: the grids and the evaluation during training,
// `hamgan sample`, `fid` on a checkpoint and `export`. A checkpoint does not store
// the training batch, and batch statistics depend on the batch's size, so one
// fixed size is what lets those commands reproduce the numbers a run logged.
constexpr int64_t kStandingBatchSize = 64;

// Replaces g's BN running statistics; batches 0 leaves them as they are. The
// global RNG is restored afterwards; z, labels and any eval-time randomness of
// the blocks follow `seed`. Leaves g in eval mode.
void accumulate_standing_stats(Generator& g, int64_t batches, int64_t batch_size, uint64_t seed);

// Keeps a copy of a module's buffers and puts them back when it goes out of
// scope: evaluation during training recomputes statistics on G_ema without
// changing what training (and its checkpoints) carries on with.
class BufferSnapshot {
 public:
  explicit BufferSnapshot(torch::nn::Module& module);
  ~BufferSnapshot();
  BufferSnapshot(const BufferSnapshot&) = delete;
  BufferSnapshot& operator=(const BufferSnapshot&) = delete;

 private:
  std::vector<torch::Tensor> live_, saved_;
};

}  // namespace hamgan
