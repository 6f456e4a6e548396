#pragma once
// Configuration of the generator and discriminator (docs/models.md).
// Every key is a field of model_config_fields(): validation, the text codec and the CLI
// options come from that one table, block options included (the registry's fields).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/config_fields.h"
#include "modules/context_block.h"
#include "modules/resample_conv.h"

namespace hamgan {

// Weight initialisation of every SN conv, linear and embedding (biases are zeroed by all schemes).
enum class InitScheme {
  kXavier,      // Glorot-uniform, TF-GAN SAGAN/YLG/HamGAN and BigGAN-PyTorch SAGAN (docs/models.md, "Sources")
  kOrthogonal,  // orthogonal, StudioGAN default
  kN02,         // N(0, 0.02), the DCGAN-style option of BigGAN-PyTorch/StudioGAN
};

// Which registered context block a network uses.
struct BlockChoice {
  std::string name = "none";
};

struct ModelConfig {
  int64_t resolution = 32;        // 32, 64 or 128
  int64_t image_channels = 3;
  int64_t num_classes = 10;
  int64_t z_dim = 128;
  int64_t g_ch = 64;              // generator channel multiplier (gf_dim)
  int64_t d_ch = 64;              // discriminator channel multiplier (df_dim)
  int64_t block_resolution = 0;   // feature-map side of the context block in G and D; 0 = min(32, resolution / 2)
  BlockChoice g_block;            // context block of G (name "none" for no block)
  BlockChoice d_block;            // context block of D
  InitScheme init = InitScheme::kXavier;
  // How G's up-blocks and D's down-blocks resample: separate passes or folded into the 3×3
  // convolution (modules/resample_conv.h). The same parameters either way, so it may change on
  // resume and is not part of a checkpoint's identity.
  ResampleConv resample_conv = ResampleConv::kSeparate;
  // Option values of the registered blocks by key ("ham_rank" -> "2"), shared by G's and D's
  // block (they differ only in width, as in HamGAN); a key left out means its registered default.
  std::map<std::string, std::string> block_options;

  // Every key's check, then the block position (a feature map of that side in G and D; defined in
  // model_plan.cpp). Throws ConfigError naming the bad key.
  void validate() const;
  // block_resolution with 0 resolved: 32 at 64/128 (the paper position), 16 at 32 (D has no 32×32 map there).
  int64_t context_side() const;
  // The options G's / D's block is built from (num_classes 0; the generator sets G's).
  ContextOptions g_context() const;
  ContextOptions d_context() const;
};

// The model keys in order: resolution, image_channels, num_classes, z_dim, g_ch, d_ch,
// block_resolution, g_block, d_block, init, resample_conv, then every registered block's option keys.
// Built per call, so blocks registered later appear too.
FieldTable<ModelConfig> model_config_fields();

// "xavier" | "orthogonal" | "n02": the model key `init` takes these names.
const EnumNames<InitScheme>& init_scheme_names();
InitScheme parse_init_scheme(const std::string& s);  // ConfigError listing the names
std::string to_string(InitScheme s);

// Every key of model_config_fields() as flat TOML "key = value" lines (readable by --config and
// by model_config_from_text; checkpoints store this text).
std::string model_config_to_text(const ModelConfig& c);
// The same text without the keys that may change on resume (resample_conv): what a checkpoint's
// model must equal for a run to resume from it.
std::string model_identity_text(const ModelConfig& c);
// Reads that text back; keys left out keep their defaults (so a file may name only some keys),
// unknown keys and bad values throw ConfigError naming the key.
ModelConfig model_config_from_text(const std::string& text);

// Reference configurations (docs/models.md, "Sources"): 128×128, 1000 classes, g_ch = d_ch = 64, block at 32.
// Names: sagan128 (sa), ylg128 (ylg), hamgan128 (ham, NMF), sngan128 (none). Unknown names throw ConfigError.
ModelConfig model_preset(const std::string& name);
std::vector<std::string> model_preset_names();

}  // namespace hamgan
