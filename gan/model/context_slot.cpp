#include "gan/model/context_slot.h"

#include "core/errors.h"

namespace hamgan {

ContextBlock make_positioned_context_block(const ContextOptions& options, int64_t channels, int64_t side,
                                           const std::string& key, const std::string& width_key) {
  const std::string where = key + " " + options.name + " at " + std::to_string(side) + "x" + std::to_string(side) +
                            " with " + std::to_string(channels) + " channels: ";
  const std::string hint = "; change " + width_key + " or block_resolution";
  // Keep the error type: bad widths stay ModelErrors, bad options stay ConfigErrors.
  try {
    return make_context_block(options, channels);
  } catch (const ConfigError& e) {
    throw ConfigError(where + e.what() + hint);
  } catch (const ModelError& e) {
    throw ModelError(where + e.what() + hint);
  }
}

}  // namespace hamgan
