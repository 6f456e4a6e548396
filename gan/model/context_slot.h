#pragma once
// Builds G's or D's context block, naming the network, position and width in
// any error (e.g. "g_block ylg at 16x16 with 32 channels: ...; change g_ch or block_resolution").
#include <string>

#include "modules/context_block.h"

namespace hamgan {

ContextBlock make_positioned_context_block(const ContextOptions& options, int64_t channels, int64_t side,
                                           const std::string& key, const std::string& width_key);

}  // namespace hamgan
