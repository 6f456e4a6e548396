#pragma once
// Block-by-block channel and resolution plans of G and D, shared by the
// constructors and `hamgan model-info` so both always describe the same network.
#include <cstdint>
#include <string>
#include <vector>

#include "gan/model/model_config.h"

namespace hamgan {

struct BlockPlan {
  std::string name;  // submodule name: block1, block2, ...
  int64_t in_ch, out_ch;
  int64_t in_side, out_side;
  bool resample;  // G: upsample ×2 (always); D: average-pool ×2
};

// G: SN-linear to 4×4×w(4), then up-blocks to R; the feature map of side s has
// g_ch·min(16, R/s) channels, so the last block always outputs g_ch and the
// 128 plan is TF-GAN's 16,16,8,4,2,1 (docs/models.md, "Channel plans").
int64_t generator_stem_channels(const ModelConfig& c);
std::vector<BlockPlan> generator_plan(const ModelConfig& c);
// D: optimized block R→R/2, down-blocks to 4×4, then one block without
// downsampling; the block output of side s has d_ch·min(16, R/(2s)) channels
// (128 plan: TF-GAN's 1,2,4,8,16,16), so the first block always outputs d_ch.
std::vector<BlockPlan> discriminator_plan(const ModelConfig& c);
// Index of the block after which the context block sits (first block whose
// output side equals c.context_side()), or -1 if there is none.
int64_t context_index(const std::vector<BlockPlan>& plan, int64_t side);

}  // namespace hamgan
