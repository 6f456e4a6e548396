#pragma once
// How the step functions compute: today strict fp32 only. Mixed precision
// (TF32, bf16 autocast, channels_last) plugs in here: the step functions open a
// PrecisionScope around every forward pass and nothing else changes.
#include <string>

namespace hamgan {

enum class PrecisionMode { kFp32 };

struct Precision {
  PrecisionMode mode = PrecisionMode::kFp32;
  std::string name() const { return "fp32"; }
};

// Entered around each forward pass of G and D. For fp32 it changes nothing.
class PrecisionScope {
 public:
  explicit PrecisionScope(const Precision&) {}
  PrecisionScope(const PrecisionScope&) = delete;
  PrecisionScope& operator=(const PrecisionScope&) = delete;
};

}  // namespace hamgan
