#pragma once
// Helpers shared by the train tests: temporary directories, running the CLI and Python.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "gan/train_config.h"

namespace hamgan::test {

inline std::string temp_dir(const std::string& name) {
  const char* base = std::getenv("HAMGAN_TEST_TMP");
  // ctest runs each test in its own process, several at once: the pid keeps their directories apart.
  std::filesystem::path p = std::filesystem::path(base ? base : "/tmp/hamgan_test_train") /
                            ("train_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

// Runs a shell command, returning its exit status and capturing stdout+stderr into `output`.
inline int run_command(const std::string& cmd, std::string* output = nullptr) {
  std::string out;
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  if (output) *output = out;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline const char* hamgan_bin() { return std::getenv("HAMGAN_BIN"); }

inline std::string python_script(const std::string& name) {
  return std::string(HAMGAN_SOURCE_DIR) + "/tests/python/" + name;
}

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
  c.model.g_block.rank = 2;
  c.model.d_block.rank = 2;
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
