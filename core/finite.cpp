#include "core/finite.h"

namespace hamgan {

std::string first_nonfinite_tensor(const torch::nn::Module& m, bool buffers) {
  torch::NoGradGuard no_grad;
  auto bad = [](const torch::Tensor& t) { return t.is_floating_point() && !torch::isfinite(t).all().item<bool>(); };
  for (const auto& item : m.named_parameters())
    if (bad(item.value())) return item.key();
  if (buffers)
    for (const auto& item : m.named_buffers())
      if (bad(item.value())) return item.key();
  return "";
}

}  // namespace hamgan
