#pragma once
// The Hamburger context block (architecture.md §3), registered as "ham".
#include "modules/context_block.h"

namespace hamgan {

ContextBlock make_ham_block(const ContextOptions& options, int64_t channels);

}  // namespace hamgan
