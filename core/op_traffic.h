#pragma once
// What one ATen kernel moves through memory, read from the sizes and dtypes of its
// tensors: the op counter's `bytes` and `casts` (core/op_counter.h). On a GPU the
// ops that are not convolutions or matrix products are bound by memory bandwidth,
// so their bytes, not their arithmetic, set their time; counting them on the CPU
// shows what a change of layout or dtype saves before a GPU runs it.
// bench/python/traffic_counter.py applies the same rules to the PyTorch reference.
#include <ATen/core/ivalue.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace hamgan {

// Convolutions and matrix products (their names contain "conv", or are mm, bmm,
// addmm, baddbmm, matmul, linear, ...): bound by arithmetic, so left out of `bytes`.
bool is_compute_bound_op(const std::string& name);
// The matrix products named above, and the gathers of kernel_bytes; bench/python/traffic_counter.py's
// PRODUCTS and GATHERS are checked against them (tests/core/op_traffic_mirror_test.cpp).
const std::vector<std::string>& matrix_product_op_names();
const std::vector<std::string>& gather_op_names();

// Bytes moved, in all and of the tensors that grow with the batch (ActivationRule::grows_with_batch):
// the second, divided by the batch, is what each image adds, whatever the weights' share at a small batch.
struct Bytes {
  int64_t all = 0, per_sample = 0;
  Bytes& operator+=(const Bytes& o) {
    all += o.all;
    per_sample += o.per_sample;
    return *this;
  }
  Bytes& operator-=(const Bytes& o) {
    all -= o.all;
    per_sample -= o.per_sample;
    return *this;
  }
};

// Which tensors are activations (feature maps): the first dimension a multiple of
// the batch (D's real and fake halves included), at least two more dimensions
// larger than one ((N, C, H, W), the Hamburger's (N, d, n)), and not the shape of
// a parameter (a weight or its gradient). Statistics ((C), (1, C, 1, 1)) and
// per-sample vectors (z, CBN's gathered gains (N, C, 1, 1)) are not. A batch
// that divides no channel count keeps the rule exact (the tests use 7).
struct ActivationRule {
  int64_t batch = 0;  // 0: nothing is an activation, no casts or per-sample bytes are counted
  std::set<std::vector<int64_t>> parameter_shapes;
  // The first dimension a multiple of the batch, the shape no parameter's: a tensor that grows with the batch.
  bool grows_with_batch(c10::IntArrayRef shape) const;
  bool is_activation(c10::IntArrayRef shape) const;
};

// The tensors an op was called with, as read at its start (RecordFunction hands
// the inputs to the start callback only): where each one's data is and its size.
struct OpInput {
  const void* data;
  Bytes bytes;
};
struct OpInputs {
  std::vector<OpInput> tensors;  // lists flattened
  Bytes first_argument, total;   // the first argument (a tensor or a list); every argument
  // The first two arguments' dtypes and the first one's shape, where they are tensors (a cast's ends).
  at::ScalarType first_dtype = at::ScalarType::Undefined, second_dtype = at::ScalarType::Undefined;
  std::vector<int64_t> first_shape;
};
OpInputs read_inputs(c10::ArrayRef<const c10::IValue> inputs, const ActivationRule& rule);

// Bytes read plus written by a kernel: every tensor argument is read and every
// tensor returned is written, except that an op that only writes an argument
// (copy_, fill_, zero_, an out= overload) does not read it, an in-place op
// that returns nothing (the multi-tensor _foreach_*_ ops) writes its first
// argument, and a gather (index_select, index, gather, embedding, take) reads
// from its first argument only the rows it writes.
Bytes kernel_bytes(const std::string& name, std::string_view overload, const OpInputs& in,
                   const std::vector<c10::IValue>& outputs, const ActivationRule& rule);

// Whether the kernel converts an activation between float32 and bfloat16: a
// copy_ between the two dtypes, or a _to_copy that does its own work.
bool is_activation_cast(const std::string& name, const OpInputs& in, const std::vector<c10::IValue>& outputs,
                        const ActivationRule& rule);

}  // namespace hamgan
