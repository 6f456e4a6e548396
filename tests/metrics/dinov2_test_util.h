#pragma once
// The DINOv2 tests' shared probe of a feature file's load.
#include <string>

#include "core/errors.h"
#include "metrics/dinov2_features.h"

namespace hamgan::test {

// The message of the CheckpointError make_dinov2_extractor throws for `path` ("" if none).
inline std::string dinov2_load_error(const std::string& path) {
  try {
    make_dinov2_extractor(path, DinoResize::torch_bicubic, torch::kCPU);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

}  // namespace hamgan::test
