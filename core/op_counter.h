#pragma once
// Counts the ATen ops a span of work dispatches, by phase, with a thread-local
// RecordFunction observer (so the data loader's worker threads stay out; the
// autograd engine carries the observer into the backward pass). What a GPU would
// show as launches and stalls is thus countable on any device:
//   op     an ATen op with no ATen op inside it (a leaf of the dispatch tree);
//   kernel an ATen op that does work (it is not a view, an allocation or a no-op
//          conversion: metadata_ops in op_counter.cpp) and has no such op
//          inside it, so a convolution whose only children allocate its output
//          counts once and a composite op counts through what it calls; a
//          multi-tensor op (_foreach_*, _fused_*) counts once, as on CUDA;
//   sync   a host synchronisation point: `.item()` (aten::_local_scalar_dense), an
//          op whose output size depends on the data (nonzero, masked_select,
//          unique), a copy from a device to the host, or a host-to-device copy
//          that blocks (non_blocking false, or from pageable memory where the
//          build can pin);
//   bytes  what the kernels that are not convolutions or matrix products read
//          and write, from their tensors' sizes and dtypes (core/op_traffic.h):
//          on a GPU these are bound by memory bandwidth; per_sample_bytes is
//          their share in tensors that grow with the batch (count_activation_casts'
//          rule), which divided by the batch is what each image adds;
//   cast   a kernel that converts an activation between float32 and bfloat16
//          (count_activation_casts says which tensors are activations).
// bench/python/hamgan_torch_profile.py applies the same definitions to PyTorch's profiler.
#include <ATen/record_function.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/op_traffic.h"

namespace hamgan {

struct OpCounts {
  int64_t ops = 0, kernels = 0, syncs = 0, bytes = 0, casts = 0;
  int64_t per_sample_bytes = 0;  // the share of `bytes` in tensors that grow with the batch
  OpCounts& operator+=(const OpCounts& o);
};

class OpCounter {
 public:
  // Counts on the calling thread (and its backward passes) until destroyed, in
  // `phases` buckets, with StageTimer's boundaries: lap(p) charges what was
  // dispatched since the last boundary to p, restart() drops it.
  explicit OpCounter(size_t phases);
  ~OpCounter();
  OpCounter(const OpCounter&) = delete;
  OpCounter& operator=(const OpCounter&) = delete;

  // Counts casts of the tensors `rule` calls activations, and the bytes of those that grow with
  // the batch, from now on (none before).
  void count_activation_casts(ActivationRule rule);

  void restart();
  void lap(size_t phase);
  std::vector<OpCounts> counts() const;
  OpCounts total() const;
  // Each host synchronisation point charged to a phase, by op name ("aten::copy_ (device to host)" for copies).
  std::map<std::string, int64_t> sync_ops() const;
  // Kernels, bytes and casts charged to the phases, by the kernel's op name: where a step's launches and
  // memory traffic go ("aten::mul" 312 kernels, ...); copies by what they convert ("aten::copy_ (Float to
  // BFloat16)", "aten::copy_ (same dtype)").
  std::map<std::string, OpCounts> by_op() const;

  // True when an op called `name` is one that does no work on the device (a view, an allocation, a no-op `to`).
  static bool is_metadata_op(const std::string& name);
  // Those ops by name (bench/python/hamgan_torch_profile.py's METADATA_OPS is checked against them).
  static const std::set<std::string>& metadata_op_names();

 private:
  static std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn);
  static void on_end(const at::RecordFunction& fn, at::ObserverContext* ctx);
  void record(const OpCounts& c, const std::string& sync, const std::string& kernel = "");

  mutable std::mutex mu_;
  std::vector<OpCounts> counts_;
  std::map<std::string, int64_t> sync_ops_;
  OpCounts pending_;  // since the last boundary
  std::map<std::string, int64_t> pending_sync_ops_;
  std::map<std::string, OpCounts> by_op_, pending_by_op_;
  ActivationRule activations_;  // set before counting, then only read
  at::CallbackHandle handle_;
};

}  // namespace hamgan
