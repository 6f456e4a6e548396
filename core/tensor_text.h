#pragma once
// How an error message names a tensor it refuses: "[4, 128] Float", or "undefined".
#include <ATen/core/Tensor.h>
#include <c10/util/StringUtil.h>

#include <string>

namespace hamgan {

inline std::string tensor_text(const at::Tensor& t) {
  return t.defined() ? c10::str(t.sizes(), " ", t.scalar_type()) : std::string("undefined");
}

}  // namespace hamgan
