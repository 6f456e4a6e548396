#include "core/op_traffic.h"

#include <ATen/core/Tensor.h>

#include <algorithm>

#include "core/text.h"

namespace hamgan {
namespace {

int64_t tensor_bytes(const at::Tensor& t) {
  return t.defined() ? t.numel() * static_cast<int64_t>(t.element_size()) : 0;
}

Bytes bytes_of(const at::Tensor& t, const ActivationRule& rule) {
  const int64_t n = tensor_bytes(t);
  return {n, t.defined() && rule.grows_with_batch(t.sizes()) ? n : 0};
}

// Every tensor an argument or a result holds (a tensor, a list of tensors, or none).
template <class Visit>
void each_tensor(const c10::IValue& v, Visit&& visit) {
  if (v.isTensor()) {
    visit(v.toTensor());
  } else if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorVector()) visit(t);
  } else if (v.isList()) {  // optional tensors (index_put_'s indices)
    for (const c10::IValue& e : v.toListRef())
      if (e.isTensor()) visit(e.toTensor());
  }
}

// Ops that write their first argument without reading it.
bool only_writes_first(const std::string& name, std::string_view overload) {
  return name == "aten::copy_" || ends_with(name, "fill_") || ends_with(name, "zero_") ||
         overload.substr(0, 3) == "out";
}

// Ops that read only the rows they gather from their first argument: as many bytes as they write.
bool gathers_from_first(const std::string& name) {
  const auto& names = gather_op_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool is_float_or_bf16(at::ScalarType t) { return t == at::kFloat || t == at::kBFloat16; }

}  // namespace

const std::vector<std::string>& matrix_product_op_names() {
  static const std::vector<std::string> names = {
      "aten::mm",     "aten::bmm", "aten::addmm", "aten::baddbmm", "aten::addbmm",            "aten::matmul",
      "aten::linear", "aten::mv",  "aten::addmv", "aten::dot",     "aten::_addmm_activation", "aten::mkldnn_linear"};
  return names;
}

const std::vector<std::string>& gather_op_names() {
  static const std::vector<std::string> names = {"aten::index_select", "aten::index", "aten::gather",
                                                 "aten::embedding", "aten::take"};
  return names;
}

bool is_compute_bound_op(const std::string& name) {
  const auto& products = matrix_product_op_names();
  return name.find("conv") != std::string::npos || std::find(products.begin(), products.end(), name) != products.end();
}

OpInputs read_inputs(c10::ArrayRef<const c10::IValue> inputs, const ActivationRule& rule) {
  OpInputs in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    each_tensor(inputs[i], [&](const at::Tensor& t) {
      if (!t.defined()) return;
      const Bytes bytes = bytes_of(t, rule);
      in.tensors.push_back({t.unsafeGetTensorImpl()->has_storage() ? t.data_ptr() : nullptr, bytes});
      in.total += bytes;
      if (i == 0) in.first_argument += bytes;
    });
    if (i < 2 && inputs[i].isTensor() && inputs[i].toTensor().defined()) {
      const at::Tensor& t = inputs[i].toTensor();
      (i == 0 ? in.first_dtype : in.second_dtype) = t.scalar_type();
      if (i == 0) in.first_shape = t.sizes().vec();
    }
  }
  return in;
}

Bytes kernel_bytes(const std::string& name, std::string_view overload, const OpInputs& in,
                   const std::vector<c10::IValue>& outputs, const ActivationRule& rule) {
  std::vector<const void*> written;
  Bytes bytes;
  for (const c10::IValue& v : outputs)
    each_tensor(v, [&](const at::Tensor& t) {
      bytes += bytes_of(t, rule);
      if (t.defined() && t.unsafeGetTensorImpl()->has_storage()) written.push_back(t.data_ptr());
    });
  if (outputs.empty() && ends_with(name, "_")) bytes += in.first_argument;
  if (gathers_from_first(name)) {
    Bytes read_rows = bytes;  // as many as it writes, from the first argument
    bytes += read_rows;
    bytes += in.total;
    bytes -= in.first_argument;
    return bytes;
  }
  const bool skip_written = only_writes_first(name, overload);
  for (const auto& input : in.tensors)
    if (!skip_written || std::find(written.begin(), written.end(), input.data) == written.end()) bytes += input.bytes;
  return bytes;
}

bool ActivationRule::grows_with_batch(c10::IntArrayRef shape) const {
  if (batch < 1 || shape.empty() || shape[0] == 0 || shape[0] % batch != 0) return false;
  return parameter_shapes.count(shape.vec()) == 0;
}

bool ActivationRule::is_activation(c10::IntArrayRef shape) const {
  if (!grows_with_batch(shape)) return false;
  return std::count_if(shape.begin() + 1, shape.end(), [](int64_t n) { return n > 1; }) >= 2;
}

bool is_activation_cast(const std::string& name, const OpInputs& in, const std::vector<c10::IValue>& outputs,
                        const ActivationRule& rule) {
  at::ScalarType from = at::ScalarType::Undefined, to = at::ScalarType::Undefined;
  if (name == "aten::copy_") {
    from = in.second_dtype;
    to = in.first_dtype;
  } else if (name == "aten::_to_copy" && !outputs.empty() && outputs[0].isTensor()) {
    from = in.first_dtype;
    to = outputs[0].toTensor().scalar_type();
  }
  if (from == to || !is_float_or_bf16(from) || !is_float_or_bf16(to)) return false;
  return rule.is_activation(in.first_shape);
}

}  // namespace hamgan
