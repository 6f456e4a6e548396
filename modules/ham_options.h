#pragma once
// The Hamburger's options (docs/ham.md, "Options"): the typed struct, its one
// field table (keys, checks, help) and the conversions to and from the
// registry's ContextOptions.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config_fields.h"
#include "modules/context_block.h"
#include "modules/ham_types.h"

namespace hamgan {

// Config keys ham_type, ham_train_steps, ... (ham_option_table()).
struct HamOptions {
  HamType type = HamType::kNMF;
  int64_t train_steps = 6;  // K while training
  int64_t eval_steps = 6;   // K in eval (the GAN code uses the same K)
  int64_t rank = 0;         // r; 0 means d / 8
  HamGradient gradient = HamGradient::kOneStep;
  double temperature = 0.0;  // 0 means the reference value for the type (NMF 1, VQ/CD 0.01 i.e. inv_t 100)
  double beta = 0.01;        // CD ridge term (GAN code 0.01)
  HamInit init = HamInit::kRandom;
};

// The one list of the Hamburger's option keys with their checks and help.
const FieldTable<HamOptions>& ham_option_table();
// The same fields as the registry holds them (context_registry.cpp).
std::vector<FieldSpec> ham_block_options();
// The typed options from a block's option values; a bad value throws ConfigError naming its key.
HamOptions parse_ham_options(const ContextOptions& options);
// ContextOptions for the block "ham" carrying `options` (benchmarks and tests).
ContextOptions ham_context_options(const HamOptions& options, int64_t num_classes = 0);

}  // namespace hamgan
