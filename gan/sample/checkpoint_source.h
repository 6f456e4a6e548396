#pragma once
// Generator checkpoints as FID image sources (`hamgan fid RUN ...`, `hamgan
// fid-stats RUN ...`): metrics streams images from an ImageSource and knows
// nothing of generators, so the commands build this one and pass it down.
#include <torch/torch.h>

#include <memory>
#include <optional>
#include <string>

#include "metrics/fid.h"
#include "gan/sample/label_draw.h"
#include "metrics/image_source.h"
#include "modules/resample_conv.h"

namespace hamgan {

// n samples from the EMA generator of a checkpoint (a .pt file or a run
// directory), G on `device`, their classes drawn by `labels` (default: image i
// gets class i mod K). z and labels are drawn from `seed` up front, so any batch
// [offset, offset + count) is the same whatever the batching; standing_stats:
// batches over which G's BN statistics are recomputed first (0: the stored ones);
// resample: G's resampling form instead of the saved one (load_generator.h).
std::unique_ptr<ImageSource> open_checkpoint_source(const std::string& path, int64_t n, uint64_t seed,
                                                    int64_t standing_stats, torch::Device device,
                                                    const LabelDraw& labels = {},
                                                    std::optional<ResampleConv> resample = std::nullopt);

// The same generator on the z and labels of an .npz (gan/sample/latents_file.h),
// every row in file order; `n` must equal the file's rows (ConfigError naming
// both). `seed` still seeds the standing statistics and the global generator,
// as FixedNoise does, so a file of a seed's draw gives that seed's images.
std::unique_ptr<ImageSource> open_latents_source(const std::string& path, const std::string& latents, int64_t n,
                                                 uint64_t seed, int64_t standing_stats, torch::Device device,
                                                 std::optional<ResampleConv> resample = std::nullopt);

// The opener run_fid / run_fid_stats call for checkpoint inputs; `device` (auto,
// cpu, cuda, cuda:N) is resolved only when a checkpoint is opened. With
// options.latents the generator's inputs come from that file (--labels must stay balanced).
// resample_conv: --resample_conv's value (checkpoint, separate or folded).
CheckpointOpener checkpoint_opener(const std::string& device, const std::string& resample_conv = "checkpoint");

}  // namespace hamgan
