#pragma once
// Configuration of the generator and discriminator (architecture.md §1, §3).
#include <cstdint>
#include <string>
#include <vector>

#include "modules/context_block.h"

namespace hamgan {

// Weight initialisation of every SN conv, linear and embedding (biases are zeroed by all schemes).
enum class InitScheme {
  kXavier,      // Glorot-uniform, TF-GAN SAGAN/YLG/HamGAN and BigGAN-PyTorch SAGAN (architecture.md §1.1, §4.1)
  kOrthogonal,  // orthogonal, StudioGAN default (§4.2)
  kN02,         // N(0, 0.02), the DCGAN-style option of BigGAN-PyTorch/StudioGAN
};

struct ModelConfig {
  int64_t resolution = 32;        // 32, 64 or 128
  int64_t image_channels = 3;
  int64_t num_classes = 10;
  int64_t z_dim = 128;
  int64_t g_ch = 64;              // generator channel multiplier (gf_dim)
  int64_t d_ch = 64;              // discriminator channel multiplier (df_dim)
  int64_t block_resolution = 0;   // feature-map side of the context block in G and D; 0 = min(32, resolution / 2)
  ContextOptions g_block;         // context block of G (name "none" for no block)
  ContextOptions d_block;         // context block of D
  InitScheme init = InitScheme::kXavier;
  void validate() const;          // throws ConfigError naming the bad field
  // block_resolution with 0 resolved: 32 at 64/128 (the paper position), 16 at 32 (D has no 32×32 map there).
  int64_t context_side() const;
};

InitScheme parse_init_scheme(const std::string& s);
std::string to_string(InitScheme s);

// The config as flat TOML keys (the names of cli/model_options.h), one per line, readable back with
// --config. The ham_* keys are written from g_block (the CLI sets the same values in both blocks).
std::string to_toml(const ModelConfig& c);

// Reference configurations (architecture.md §1, §2, §3): 128×128, 1000 classes, g_ch = d_ch = 64, block at 32.
// Names: sagan128 (sa), ylg128 (ylg), hamgan128 (ham, NMF), sngan128 (none). Unknown names throw ConfigError.
ModelConfig model_preset(const std::string& name);
std::vector<std::string> model_preset_names();

}  // namespace hamgan
