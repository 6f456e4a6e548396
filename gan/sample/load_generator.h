#pragma once
// A trained generator ready to sample from: weights from a checkpoint, BN
// statistics recomputed for the weights actually used (standing_stats.h).
#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "gan/model/generator.h"

namespace hamgan {

// The EMA weights, or the raw ones when `use_ema` is false or the run had no
// EMA, on `device` and in eval mode, with BN statistics recomputed over
// `standing_batches` batches of kStandingBatchSize seeded by `standing_seed`
// (0 keeps the stored moving averages).
// `resample` runs it with the resampling in that form (model key resample_conv; the same results, since
// both forms share the 3x3 parameters) instead of the one the run saved.
Generator load_generator(const std::string& path, bool use_ema, torch::Device device, int64_t standing_batches,
                         uint64_t standing_seed, std::optional<ResampleConv> resample = std::nullopt);

// The option --resample_conv of the commands that load a generator: "checkpoint" (the saved form),
// "separate" or "folded".
const std::vector<std::string>& resample_conv_choices();
std::optional<ResampleConv> resample_override(const std::string& choice);

}  // namespace hamgan
