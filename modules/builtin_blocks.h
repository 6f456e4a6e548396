#pragma once
// Factories of the built-in context blocks. The registry calls them on first
// use: static registrars in a static library are dropped by the linker when
// nothing references their object file.
#include "modules/context_block.h"

namespace hamgan {

ContextBlock make_none_block(const ContextOptions& options, int64_t channels);
ContextBlock make_sa_block(const ContextOptions& options, int64_t channels);
ContextBlock make_ylg_block(const ContextOptions& options, int64_t channels);

}  // namespace hamgan
