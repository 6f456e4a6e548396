#pragma once
// Everything a resume needs, in one object that saves and loads itself: the step's
// state (gan/step/step_state.h: G, D, G_ema, both Adam optimisers, the objective's
// state, the noise stream for z and fake labels, the step) plus the run's own: the
// data loader's position, the global RNG states (the Hamburger's random bases draw
// from them), the best evaluation score so far, the run's identity and every rank's
// rows. One checkpoint file holds one TrainState (gan/checkpoint/archive.h), saved
// component by component under fixed names (train_state.cpp).
//
// Two random streams, on purpose: the weights are initialised from the global
// generator seeded with `seed` (identical on every rank of a data-parallel
// run), while z and fake labels come from `noise`, seeded from (seed, rank), so
// each rank can draw its own.
#include <torch/torch.h>

#include <limits>
#include <string>

#include "data/loader.h"
#include "gan/step/step_state.h"
#include "gan/train/train_config.h"

namespace hamgan {

struct BestScore {
  std::string metric;  // e.g. "fid_classifier"; "" until an evaluation ran
  double value = std::numeric_limits<double>::quiet_NaN();
  int64_t step = -1;
};

// Seeds the global generator for a run's initial weights (derived_seed(seed,
// SeedPurpose::kWeights), core/seeds.h). open_run calls it right before it builds
// the TrainState, so the weights depend on the seed alone.
void seed_initial_weights(uint64_t seed);

class TrainState : public StepState {
 public:
  // Fresh networks (weights drawn from the global generator as it stands: see
  // seed_initial_weights) and optimisers on `device`; G_ema starts as a copy of G
  // when cfg.ema. `shared_noise` (noise_streams = "global"): this rank draws from
  // rank 0's noise stream instead of its own.
  TrainState(const TrainConfig& cfg, torch::Device device, int64_t rank = 0, int64_t world_size = 1,
             bool shared_noise = false);

  // Atomic write with completeness marker; load restores every member and the
  // global RNG states. load throws CheckpointError when the file's model differs.
  // A rank whose noise stream the file lacks (another world size, or a state
  // saved by rank 0 alone after a failure) reseeds it from (seed, rank, step).
  void save(const std::string& path);
  void load(const std::string& path);

  LoaderPosition data_position;  // where the loader continues
  // Whose noise stream this rank draws: its own rank's, or rank 0's for every
  // rank with noise_streams = "global" (each then keeps its slice of the draw).
  int64_t noise_rank = 0;
  BestScore best;
  std::string run_id;       // random at creation, kept across resumes
  std::string config_text;  // the resolved config the run was started with
  // Data-parallel runs: the rank this state lives on (not saved), and every
  // rank's noise stream state (uint8 (world_size, bytes), gathered before a
  // checkpoint) so that each rank resumes its own stream. Undefined or one row:
  // only this rank's stream is saved. (world_size, the job's, is the step's.)
  int64_t rank = 0;
  uint64_t seed = 0;  // the run's seed (reseeds a noise stream the checkpoint lacks)
  torch::Tensor rank_noise_states;
  // The generator of this rank's device, whose stream the Hamburger's random
  // bases draw from on CUDA: the default generator of its GPU (undefined on the
  // CPU, whose generator is saved with the global state). Checkpoints keep every
  // rank's (rank_device_rng_states, gathered like the noise streams) and rank k
  // restores row k, never rank 0's view of GPU k.
  at::Generator device_rng;
  torch::Tensor rank_device_rng_states;
  // On the CPU: the device generator state of the checkpoint loaded last, written
  // back by save, so a GPU run's checkpoint keeps it through a CPU load and save.
  torch::Tensor carried_device_rng;
  // After load: the world size the checkpoint was written with, and whether
  // this rank's own noise stream (and device generator) was in it (false:
  // reseeded, see load; the device generator keeps its seeded state).
  int64_t loaded_world_size = 1;
  bool noise_restored = true;
  bool device_rng_restored = false;
};

}  // namespace hamgan
