#pragma once
// Factories and MAC counts of the built-in context blocks without a header of
// their own. The registry calls them on first use: static registrars in a
// static library are dropped by the linker when nothing references their
// object file.
#include <cstdint>
#include <vector>

#include "modules/context_block.h"

namespace hamgan {

ContextBlock make_none_block(const ContextOptions& options, int64_t channels);
int64_t none_block_macs(const ContextOptions& options, const std::vector<int64_t>& shape);
ContextBlock make_sa_block(const ContextOptions& options, int64_t channels);
int64_t sa_block_macs(const ContextOptions& options, const std::vector<int64_t>& shape);
ContextBlock make_ylg_block(const ContextOptions& options, int64_t channels);
int64_t ylg_block_macs(const ContextOptions& options, const std::vector<int64_t>& shape);

}  // namespace hamgan
