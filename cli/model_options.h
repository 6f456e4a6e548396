#pragma once
// CLI11 options for every ModelConfig key, shared by `model-info`, `train` and
// anything else that builds G and D, generated from model_config_fields() (so
// every registered block's options are there too). The long option names are
// also the flat top-level TOML keys of --config files.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "gan/model/model_config.h"

namespace hamgan::cli {

// Binds one --KEY option per model_config_fields() entry onto `cfg` (which must
// outlive parsing). Block option keys (--ham_rank, ...) set the values shared by
// G's and D's block. Defaults shown in --help are cfg's values at the time of the call.
void add_model_options(CLI::App* app, hamgan::ModelConfig& cfg);

// The long names (without "--") that add_model_options adds, in order.
std::vector<std::string> model_option_names();

}  // namespace hamgan::cli
