#pragma once
// `hamgan model-info`: parameter counts per part and feature shapes of G and D.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "gan/model/model_config.h"

namespace torch::nn {
class Module;
}

namespace hamgan {

struct PartInfo {
  std::string name;            // submodule name (linear, block1, context, ...)
  std::vector<int64_t> shape;  // output (C, H, W) or (features), batch left out
  int64_t params = 0;          // trainable parameters (BN running stats and SN u are buffers, not counted)
};

struct NetworkInfo {
  std::string context;  // describe() of the context block
  std::vector<PartInfo> parts;  // in forward order
  int64_t total = 0;
};

struct ModelInfo {
  NetworkInfo generator, discriminator;
};

// Number of trainable parameter elements of `module` and its submodules.
int64_t count_parameters(const torch::nn::Module& module);

// Builds G and D on the CPU (no forward pass) and reports their parts;
// shapes come from the plans in model_plan.h. Throws ConfigError on a bad config.
ModelInfo model_info(const ModelConfig& config);

// The table printed by `hamgan model-info`.
void print_model_info(const ModelConfig& config, const ModelInfo& info, std::ostream& out);

}  // namespace hamgan
