#pragma once
// Configuration of the generator and discriminator (architecture.md §1, §3).
#include <cstdint>
#include <string>

#include "modules/context_block.h"

namespace hamgan {

enum class InitScheme { kXavier, kOrthogonal, kN02 };  // xavier = TF-GAN/BigGAN default

struct ModelConfig {
  int64_t resolution = 32;        // 32, 64 or 128
  int64_t image_channels = 3;
  int64_t num_classes = 10;
  int64_t z_dim = 128;
  int64_t g_ch = 64;              // generator channel multiplier (gf_dim)
  int64_t d_ch = 64;              // discriminator channel multiplier (df_dim)
  int64_t block_resolution = 32;  // feature-map side where the context block sits, in G and D
  ContextOptions g_block;         // context block of G (name "none" for no block)
  ContextOptions d_block;         // context block of D
  InitScheme init = InitScheme::kXavier;
  void validate() const;          // throws ConfigError naming the bad field
};

InitScheme parse_init_scheme(const std::string& s);
std::string to_string(InitScheme s);

}  // namespace hamgan
