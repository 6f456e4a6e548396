#pragma once
// CLI11 options for every ModelConfig key, shared by `model-info`, `train` and
// anything else that builds G and D. The long option names are also the flat
// top-level TOML keys of --config files.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "gan/model_config.h"

namespace hamgan::cli {

// Binds --resolution, --image_channels, --num_classes, --z_dim, --g_ch, --d_ch,
// --block_resolution, --g_block, --d_block, --ham_type, --ham_train_steps,
// --ham_eval_steps, --ham_rank, --ham_gradient, --ham_temperature, --ham_beta,
// --ham_init and --init onto `cfg` (which must outlive parsing). The ham_* keys
// set both G's and D's block options. Defaults shown in --help are cfg's values
// at the time of the call.
void add_model_options(CLI::App* app, hamgan::ModelConfig& cfg);

// The long names (without "--") that add_model_options adds, in order.
std::vector<std::string> model_option_names();

}  // namespace hamgan::cli
