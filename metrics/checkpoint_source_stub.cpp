// Default open_checkpoint_source for builds without generator checkpoint
// support; the gan/ module provides the real one in place of this file.
#include "core/errors.h"
#include "metrics/image_source.h"

namespace hamgan {

std::unique_ptr<ImageSource> open_checkpoint_source(const std::string& path, int64_t, uint64_t) {
  throw ConfigError(path + ": generator checkpoints are not supported by this build");
}

}  // namespace hamgan
