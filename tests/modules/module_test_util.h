#pragma once
// Small helpers the module tests share.
#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cstdint>

#include "modules/ham_block.h"

namespace hamgan::test {

// A CPU generator of its own, so a test's draws do not depend on the global seed or test order.
inline torch::Generator seeded(uint64_t seed) { return at::make_generator<at::CPUGeneratorImpl>(seed); }

inline const torch::TensorOptions kF64 = torch::TensorOptions().dtype(torch::kDouble);

// A Hamburger's options with every other setting at its default.
inline HamOptions ham_options(HamType type) {
  HamOptions o;
  o.type = type;
  return o;
}

}  // namespace hamgan::test
