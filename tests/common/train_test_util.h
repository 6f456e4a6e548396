#pragma once
// Helpers shared by the train tests: scratch directories and tiny training configs.
#include <gtest/gtest.h>

#include <string>

#include "gan/train/train_config.h"
#include "tests/common/test_util.h"

namespace hamgan::test {

inline std::string temp_dir(const std::string& name) { return scratch_dir("train", name); }

// A model small enough to train a few steps in about a second on CPU, with the
// Hamburger in both networks so the NMF's random initialisation is exercised.
inline TrainConfig tiny_config(const std::string& run_dir) {
  TrainConfig c;
  c.model.resolution = 32;
  c.model.image_channels = 1;
  c.model.num_classes = 10;
  c.model.z_dim = 8;
  c.model.g_ch = 4;
  c.model.d_ch = 4;
  c.model.g_block.name = "ham";
  c.model.d_block.name = "ham";
  c.model.block_options["ham_rank"] = "2";  // both networks' blocks
  c.batch_size = 4;
  c.steps = 4;
  c.ema_start = 1;
  c.ema_decay = 0.9;
  c.log_every = 1;
  c.sample_every = 2;
  c.checkpoint_every = 2;
  c.device = "cpu";
  c.run_dir = run_dir;
  c.progress = false;
  c.config_text = "# test\n";
  return c;
}

// The flat TOML keys of a tiny run for the CLI tests.
inline std::string tiny_cli_args() {
  return " --resolution 32 --image_channels 1 --num_classes 10 --z_dim 8 --g_ch 4 --d_ch 4 --g_block ham --d_block ham"
         " --ham_rank 2 --batch_size 4 --ema_start 1 --ema_decay 0.9 --log_every 1 --sample_every 2"
         " --checkpoint_every 2 --device cpu --quiet";
}

}  // namespace hamgan::test
