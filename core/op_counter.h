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
//          build can pin).
// bench/python/hamgan_torch_profile.py applies the same definitions to PyTorch's profiler.
#include <ATen/record_function.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace hamgan {

struct OpCounts {
  int64_t ops = 0, kernels = 0, syncs = 0;
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

  void restart();
  void lap(size_t phase);
  std::vector<OpCounts> counts() const;
  OpCounts total() const;
  // Each host synchronisation point charged to a phase, by op name ("aten::copy_ (device to host)" for copies).
  std::map<std::string, int64_t> sync_ops() const;

  // True when an op called `name` is one that does no work on the device (a view, an allocation, a no-op `to`).
  static bool is_metadata_op(const std::string& name);

 private:
  static std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn);
  static void on_end(const at::RecordFunction& fn, at::ObserverContext* ctx);
  void record(bool leaf, bool kernel, const std::string& sync);

  mutable std::mutex mu_;
  std::vector<OpCounts> counts_;
  std::map<std::string, int64_t> sync_ops_;
  OpCounts pending_;  // since the last boundary
  std::map<std::string, int64_t> pending_sync_ops_;
  at::CallbackHandle handle_;
};

}  // namespace hamgan
