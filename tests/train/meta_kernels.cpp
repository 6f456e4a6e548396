// Shape-only meta kernels for the ops of the training path that LibTorch's C++
// library has none for (PyTorch's Python side registers its own, in
// torch/_meta_registrations.py), so meta_device_test.cpp can run the path on
// the meta device. Each also refuses inputs on two devices.
#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <torch/library.h>

#include <array>
#include <tuple>
#include <vector>

namespace hamgan {
namespace {

// The shape rules LibTorch's C++ library lacks for meta tensors (Python registers
// its own, torch/_meta_registrations.py): the output's shape and device only.
at::Tensor meta_dot(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.dim() == 1 && b.dim() == 1 && a.size(0) == b.size(0), "dot: 1-D tensors of one length");
  TORCH_CHECK(a.device() == b.device(), "dot: tensors on different devices");
  return at::empty({}, a.options());
}

at::Tensor meta_flip(const at::Tensor& self, at::IntArrayRef) { return at::empty_like(self); }

at::Tensor meta_index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  TORCH_CHECK(self.device() == index.device(), "index_select: index on ", index.device(), ", input on ", self.device());
  TORCH_CHECK(index.dim() <= 1, "index_select: a 1-D index");
  dim = c10::maybe_wrap_dim(dim, self.dim());
  std::vector<int64_t> shape = self.sizes().vec();
  if (!shape.empty()) shape[static_cast<size_t>(dim)] = index.numel();
  return at::empty(shape, self.options());
}

// Every defined tensor of an op on the first one's device.
void same_device(const char* op, std::initializer_list<c10::optional<at::Tensor>> tensors) {
  c10::optional<at::Device> first;
  for (const auto& t : tensors) {
    if (!t || !t->defined()) continue;
    if (!first) first = t->device();
    TORCH_CHECK(t->device() == *first, op, ": a tensor on ", t->device(), " beside one on ", *first);
  }
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> meta_batch_norm(
    const at::Tensor& input, const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias,
    const c10::optional<at::Tensor>& running_mean, const c10::optional<at::Tensor>& running_var, bool, double,
    double) {
  same_device("native_batch_norm", {input, weight, bias, running_mean, running_var});
  const int64_t c = input.size(1);
  return {at::empty_like(input), at::empty({c}, input.options()), at::empty({c}, input.options())};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> meta_batch_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, const c10::optional<at::Tensor>& weight,
    const c10::optional<at::Tensor>& running_mean, const c10::optional<at::Tensor>& running_var,
    const c10::optional<at::Tensor>& save_mean, const c10::optional<at::Tensor>& save_invstd, bool, double,
    std::array<bool, 3> mask) {
  same_device("native_batch_norm_backward", {grad_out, input, weight, running_mean, running_var, save_mean,
                                             save_invstd});
  const int64_t c = input.size(1);
  return {mask[0] ? at::empty_like(input) : at::Tensor(), mask[1] ? at::empty({c}, input.options()) : at::Tensor(),
          mask[2] ? at::empty({c}, input.options()) : at::Tensor()};
}

int64_t nth(c10::SymIntArrayRef values, size_t i) {
  return (values.size() == 1 ? values[0] : values[i]).guard_int(__FILE__, __LINE__);
}

at::Tensor meta_conv(const at::Tensor& input, const at::Tensor& weight, const c10::optional<at::Tensor>& bias,
                     c10::SymIntArrayRef stride, c10::SymIntArrayRef padding, c10::SymIntArrayRef dilation,
                     bool transposed, c10::SymIntArrayRef, c10::SymInt) {
  same_device("convolution", {input, weight, bias});
  TORCH_CHECK(!transposed, "convolution: no meta rule for transposed convolutions");
  std::vector<int64_t> shape{input.size(0), weight.size(0)};
  for (int64_t i = 2; i < input.dim(); ++i) {
    const size_t k = static_cast<size_t>(i - 2);
    shape.push_back((input.size(i) + 2 * nth(padding, k) - nth(dilation, k) * (weight.size(i) - 1) - 1) /
                        nth(stride, k) +
                    1);
  }
  return at::empty(shape, input.options());
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> meta_conv_backward(
    const at::Tensor& grad_out, const at::Tensor& input, const at::Tensor& weight, c10::SymIntArrayRef,
    c10::SymIntArrayRef, c10::SymIntArrayRef, bool, c10::SymIntArrayRef, c10::SymInt, std::array<bool, 3> mask) {
  same_device("convolution_backward", {grad_out, input, weight});
  return {mask[0] ? at::empty_like(input) : at::Tensor(), mask[1] ? at::empty_like(weight) : at::Tensor(),
          mask[2] ? at::empty({weight.size(0)}, weight.options()) : at::Tensor()};
}

at::Tensor meta_where(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  same_device("where", {condition, self, other});
  return at::empty(at::infer_size(at::infer_size(condition.sizes(), self.sizes()), other.sizes()),
                   self.options().dtype(at::promote_types(self.scalar_type(), other.scalar_type())));
}

at::Tensor meta_embedding_backward(const at::Tensor& grad, const at::Tensor& indices, c10::SymInt num_weights,
                                   c10::SymInt, bool) {
  same_device("embedding_dense_backward", {grad, indices});
  return at::empty({num_weights.guard_int(__FILE__, __LINE__), grad.size(-1)}, grad.options());
}

at::Tensor meta_relu(const at::Tensor& self) { return at::empty_like(self); }
at::Tensor& meta_relu_(at::Tensor& self) { return self; }

// The fused Adam writes its lists in place: on meta there is nothing to write, only devices to check.
void meta_fused_adam(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
                     at::TensorList, at::TensorList steps, double, double, double, double, double, bool, bool,
                     const std::optional<at::Tensor>&, const std::optional<at::Tensor>& found_inf) {
  for (at::TensorList list : {grads, exp_avgs, exp_avg_sqs, steps})
    for (size_t i = 0; i < list.size(); ++i) same_device("_fused_adam_", {params[i], list[i]});
  if (found_inf && !params.empty()) same_device("_fused_adam_", {params[0], *found_inf});
}

TORCH_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("convolution_overrideable", meta_conv);
  m.impl("convolution_backward_overrideable", meta_conv_backward);
  m.impl("where.self", meta_where);
  m.impl("embedding_dense_backward", meta_embedding_backward);
  m.impl("relu", meta_relu);
  m.impl("relu_", meta_relu_);
  m.impl("dot", meta_dot);
  m.impl("index_select", meta_index_select);
  m.impl("flip", meta_flip);
  m.impl("native_batch_norm", meta_batch_norm);
  m.impl("native_batch_norm_backward", meta_batch_norm_backward);
  m.impl("_fused_adam_", meta_fused_adam);
}

}  // namespace
}  // namespace hamgan
