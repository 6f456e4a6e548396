#pragma once
// The class-label range check of conditional layers, where it costs no device
// synchronisation: labels on the CPU are read in place (an accessor dispatches
// no ATen op, so no `.item()`), labels on a device are left to the device's own
// index checks.
#include <torch/torch.h>

#include <string>

#include "core/errors.h"

namespace hamgan {

inline void check_label_range(const torch::Tensor& labels, int64_t classes, const std::string& layer) {
  if (!labels.device().is_cpu() || labels.dim() != 1 || labels.scalar_type() != torch::kLong) return;
  const auto a = labels.accessor<int64_t, 1>();
  for (int64_t i = 0; i < a.size(0); ++i)
    if (a[i] < 0 || a[i] >= classes)
      throw ModelError(layer + ": label " + std::to_string(a[i]) + " out of range [0, " + std::to_string(classes) +
                       "); check num_classes");
}

}  // namespace hamgan
