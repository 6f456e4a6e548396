// Placeholder until the Hamburger block lands; keeps the "ham" name registered.
#include "modules/ham_block.h"

#include "core/errors.h"

namespace hamgan {

ContextBlock make_ham_block(const ContextOptions&, int64_t) { throw ModelError("ham block not built yet"); }

}  // namespace hamgan
