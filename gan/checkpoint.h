#pragma once
// Training checkpoints (style.md lesson 9): one torch archive holding G, D,
// G_ema, both Adam states (spectral-norm u vectors and BN statistics are module
// buffers), the step, the RNG states, the data-loader position, the model
// configuration, the run's resolved config text and a format version.
// Files live in <run>/checkpoints/ as step_<step>.pt, each written to a
// temporary file and renamed; a small `latest` file names the newest good one
// and only older ones beyond `keep` are deleted, so the last good checkpoint
// is never overwritten by a later (possibly broken) state.
#include <torch/torch.h>

#include <string>

#include "data/loader.h"
#include "gan/discriminator.h"
#include "gan/generator.h"
#include "gan/model_config.h"

namespace hamgan {

inline constexpr int64_t kCheckpointFormatVersion = 1;

// What a checkpoint refers to; null members are skipped when saving and
// left alone when loading (e.g. sampling needs only G or G_ema).
struct CheckpointRefs {
  Generator g{nullptr};
  Discriminator d{nullptr};
  Generator g_ema{nullptr};
  torch::optim::Adam* g_opt = nullptr;
  torch::optim::Adam* d_opt = nullptr;
};

struct TrainingState {
  int64_t step = 0;             // completed training steps (each: d_steps D updates + 1 G update)
  LoaderPosition data_position;  // where the data loader continues
  std::string config_text;       // the run's resolved TOML config
};

// Writes `path` atomically, including the CPU (and, when used, CUDA) RNG states.
void save_checkpoint(const std::string& path, const ModelConfig& model, const CheckpointRefs& refs,
                     const TrainingState& state);

// Loads the non-null members of `refs` (whose structure must match) and, when
// `restore_rng`, the RNG states. Tensors are mapped to `device`.
TrainingState load_checkpoint(const std::string& path, const CheckpointRefs& refs, bool restore_rng,
                              torch::Device device = torch::kCPU);

// The model configuration stored in a checkpoint (no tensors are built).
ModelConfig read_checkpoint_model_config(const std::string& path);
// Whether the checkpoint carries an EMA generator.
bool checkpoint_has_ema(const std::string& path);

// A generator restored from a checkpoint, ready to sample in eval mode: the EMA
// weights, or the raw ones when `use_ema` is false or the run had no EMA, with
// its BN statistics recomputed over `standing_batches` batches seeded by
// `standing_seed` (gan/standing_stats.h; 0 keeps the stored moving averages).
Generator load_generator(const std::string& path, bool use_ema, torch::Device device, int64_t standing_batches,
                         uint64_t standing_seed);

// --- the checkpoint directory of a run
std::string checkpoint_file_name(int64_t step);  // "step_0000500.pt"
// The newest good checkpoint in `dir` (the `latest` pointer, else the highest
// step file), or "" when there is none.
std::string latest_checkpoint(const std::string& dir);
// Points `latest` at `file_name` (atomically) and deletes all but the newest `keep` step files.
void mark_latest_checkpoint(const std::string& dir, const std::string& file_name, int64_t keep);
// Accepts a checkpoint file, a run directory or its checkpoints/ directory; throws CheckpointError.
std::string resolve_checkpoint_path(const std::string& file_or_dir);

// ModelConfig as "key = value" lines and back (missing keys keep defaults, so old files stay readable).
std::string model_config_to_text(const ModelConfig& c);
ModelConfig model_config_from_text(const std::string& text);

}  // namespace hamgan
