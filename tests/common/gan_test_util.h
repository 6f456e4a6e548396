#pragma once
// Helpers shared by the G/D tests.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

#include "core/errors.h"
#include "gan/model/model_config.h"

namespace hamgan::test {

// A small model at `resolution` with `block` in G and D at `side` (0 = default).
inline ModelConfig small_config(int64_t resolution, const std::string& block, int64_t ch = 8, int64_t side = 0) {
  ModelConfig c;
  c.resolution = resolution;
  c.image_channels = 3;
  c.num_classes = 5;
  c.z_dim = 16;
  c.g_ch = c.d_ch = ch;
  c.block_resolution = side;
  c.g_block.name = c.d_block.name = block;
  return c;
}

// small_config for `block` at `resolution` that every block can build: ylg needs
// multiples of 64 channels at its map (8 heads of C/64), which g_ch = d_ch = 32
// gives at 8×8 (R 32), 16×16 (R 64) and 32×32 (R 128); the others use width 8
// at the default position.
inline ModelConfig buildable_config(int64_t resolution, const std::string& block) {
  if (block != "ylg") return small_config(resolution, block);
  return small_config(resolution, block, 32, resolution / 4);
}

}  // namespace hamgan::test
