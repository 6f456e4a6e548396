#pragma once
// The networks inside a training checkpoint, for the commands that only need
// them (sampling, FID on a generator, resume checks): G, D, G_ema and both Adam
// states (spectral-norm u vectors and BN statistics are module buffers), the
// model configuration, and the global RNG states. The whole training state is
// gan/train/train_state.h; the file discipline is archive.h and run_dir.h.
#include <torch/torch.h>

#include <string>

#include "core/rng.h"
#include "gan/checkpoint/archive.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/model/discriminator.h"
#include "gan/model/generator.h"
#include "gan/model/model_config.h"

namespace hamgan {

// What a checkpoint refers to; null members are skipped when saving and
// left alone when loading (e.g. sampling needs only G or G_ema).
struct CheckpointRefs {
  Generator g{nullptr};
  Discriminator d{nullptr};
  Generator g_ema{nullptr};
  torch::optim::Adam* g_opt = nullptr;
  torch::optim::Adam* d_opt = nullptr;
};

// Loads the non-null members of `refs` (whose structure must match) and, when
// `restore_rng`, the global RNG states; tensors are mapped to `device`. Returns the step.
int64_t load_checkpoint(const std::string& path, const CheckpointRefs& refs, bool restore_rng,
                        torch::Device device = torch::kCPU);

// The global CPU generator's state in a checkpoint (each rank's CUDA generator goes with TrainState).
void write_rng_state(CheckpointWriter& writer, const RngState& rng);
RngState read_rng_state(CheckpointReader& reader);
// A CPU generator state read from `key` of `path`: refused in one line unless it is
// the bytes LibTorch's CPU generator takes (a short one would fail deep inside it).
void check_cpu_rng_state(const torch::Tensor& state, const std::string& path, const std::string& key);

// The model configuration stored in a checkpoint (no tensors are built).
ModelConfig read_checkpoint_model_config(const std::string& path);
// Whether the checkpoint carries an EMA generator.
bool checkpoint_has_ema(const std::string& path);

}  // namespace hamgan
