#pragma once
// Class-conditional sampling from a trained generator: the helpers the trainer
// uses for its fixed-z grids and evaluation, and `hamgan sample`.
#include <torch/torch.h>

#include <string>

#include "gan/model/generator.h"
#include "gan/sample/noise.h"  // sample_z and balanced_labels, which every sampling caller draws with
#include "gan/sample/standing_stats.h"

namespace hamgan {

// Runs g (in its current train/eval mode) over z and labels in batches under
// no-grad: float CPU (N, C, H, W) in [-1, 1].
torch::Tensor generate(Generator& g, const torch::Tensor& z, const torch::Tensor& labels, int64_t batch_size);
// One forward pass under no-grad, the images left on G's device (evaluation
// quantises and extracts features there without a host round trip).
torch::Tensor generate_on_device(Generator& g, const torch::Tensor& z, const torch::Tensor& labels);

struct SampleConfig {
  std::string checkpoint;   // checkpoint file or run directory (its latest checkpoint)
  std::string which = "latest";  // with a run directory: latest | best (checkpoints/best.pt)
  int64_t n = 64;           // images to generate
  std::string out;          // DIR (PNG files), FILE.png (grid), FILE.npz or FILE.hdf5/.h5
  int64_t class_label = -1; // a single class; -1 = class-balanced over all classes
  double truncation = 0.0;  // z truncation threshold; 0 = off
  bool grid = false;        // with a directory: also write grid.png there
  int64_t nrow = 0;         // images per grid row; 0 = number of classes (≤ 10) or 8
  uint64_t seed = 0;        // z and labels are a function of the seed
  bool raw = false;         // use the raw G weights instead of the EMA ones
  int64_t standing_stats = kDefaultStandingBatches;  // batches for G's BN statistics (gan/sample/standing_stats.h); 0 = stored
  int64_t batch_size = 64;  // images per forward pass
  std::string device = "auto";
  bool progress = true;
  std::string resample_conv = "checkpoint";  // or separate | folded (load_generator.h)
  bool float_output = false;  // FILE.npz: x as float32 in [-1, 1] and z beside it, for other implementations
};

// Writes the samples; returns a one-line summary (what went where).
std::string run_sampling(const SampleConfig& cfg);

}  // namespace hamgan
