#pragma once
// A trained generator ready to sample from: weights from a checkpoint, BN
// statistics recomputed for the weights actually used (standing_stats.h).
#include <torch/torch.h>

#include <string>

#include "gan/model/generator.h"

namespace hamgan {

// The EMA weights, or the raw ones when `use_ema` is false or the run had no
// EMA, on `device` and in eval mode, with BN statistics recomputed over
// `standing_batches` batches of kStandingBatchSize seeded by `standing_seed`
// (0 keeps the stored moving averages).
Generator load_generator(const std::string& path, bool use_ema, torch::Device device, int64_t standing_batches,
                         uint64_t standing_seed);

}  // namespace hamgan
