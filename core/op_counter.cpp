#include "core/op_counter.h"

#include <ATen/Context.h>

#include <atomic>
#include <set>

#include "core/errors.h"

namespace hamgan {
namespace {

// Ops that launch nothing on a device: views, allocations and conversions that
// return their input. bench/python/hamgan_torch_profile.py keeps the same list.
const std::set<std::string>& metadata_ops() {
  static const std::set<std::string> names = {
      "aten::view", "aten::_unsafe_view", "aten::reshape", "aten::_reshape_alias", "aten::as_strided",
      "aten::t", "aten::transpose", "aten::permute", "aten::expand", "aten::expand_as", "aten::slice",
      "aten::select", "aten::narrow", "aten::unsqueeze", "aten::squeeze", "aten::detach", "aten::detach_",
      "aten::alias", "aten::lift_fresh", "aten::empty", "aten::empty_like", "aten::empty_strided",
      "aten::resize_", "aten::set_", "aten::unbind", "aten::split", "aten::split_with_sizes", "aten::chunk",
      "aten::to", "aten::contiguous", "aten::result_type", "aten::view_as", "aten::flatten", "aten::unflatten",
      "aten::movedim", "aten::diagonal", "aten::requires_grad_", "aten::retain_grad",
      "aten::_has_compatible_shallow_copy_type", "aten::is_nonzero", "aten::size", "aten::stride",
      "aten::numel", "aten::dim", "aten::item", "aten::resolve_conj", "aten::resolve_neg"};
  return names;
}

// Ops whose output size depends on the values, so the host must wait for them.
const std::set<std::string>& data_dependent_ops() {
  static const std::set<std::string> names = {"aten::_local_scalar_dense", "aten::nonzero", "aten::masked_select",
                                              "aten::_unique2", "aten::unique_consecutive", "aten::unique_dim"};
  return names;
}

std::atomic<OpCounter*> active{nullptr};

// The open ATen ops of this thread, innermost last.
struct OpenOp {
  bool has_child = false;       // an ATen op ran inside it
  bool has_work_below = false;  // an op that is not metadata-only ran somewhere inside it
  bool multi_tensor = false;    // a _foreach_ or _fused_ op, or inside one
  OpInputs inputs;              // read at its start, for its bytes and casts at its end
};

// Multi-tensor ops (_foreach_*, _fused_*) are a few launches on CUDA whatever
// their CPU fallback dispatches per tensor: each counts as one kernel, and what
// runs inside it (the fused CPU Adam reads each step count) counts as nothing.
bool is_multi_tensor(std::string_view name) {
  return name.substr(0, 15) == "aten::_foreach_" || name.substr(0, 13) == "aten::_fused_";
}
thread_local std::vector<OpenOp> open_ops;

bool starts_with_aten(const char* name) { return std::string_view(name).substr(0, 6) == "aten::"; }

// Why a copy_ holds the host up, or "" when it does not.
std::string copy_sync(c10::ArrayRef<const c10::IValue> in) {
  if (in.size() < 2 || !in[0].isTensor() || !in[1].isTensor()) return "";
  const at::Tensor& dst = in[0].toTensor();
  const at::Tensor& src = in[1].toTensor();
  if (!dst.defined() || !src.defined() || dst.device() == src.device()) return "";
  if (dst.is_cpu()) return "aten::copy_ (device to host)";
  if (!src.is_cpu()) return "";
  const bool non_blocking = in.size() > 2 && in[2].isBool() && in[2].toBool();
  if (!non_blocking) return "aten::copy_ (blocking host to device)";
  if (!at::globalContext().hasCUDA()) return "";  // nothing can be pinned in this process
  at::RecordFunctionGuard not_recorded(false);
  return src.is_pinned() ? "" : "aten::copy_ (host to device from pageable memory)";
}

}  // namespace

OpCounts& OpCounts::operator+=(const OpCounts& o) {
  ops += o.ops;
  kernels += o.kernels;
  syncs += o.syncs;
  bytes += o.bytes;
  per_sample_bytes += o.per_sample_bytes;
  casts += o.casts;
  return *this;
}

bool OpCounter::is_metadata_op(const std::string& name) { return metadata_ops().count(name) > 0; }

const std::set<std::string>& OpCounter::metadata_op_names() { return metadata_ops(); }

OpCounter::OpCounter(size_t phases) : counts_(std::max<size_t>(phases, 1)) {
  OpCounter* none = nullptr;
  if (!active.compare_exchange_strong(none, this)) throw Error("OpCounter: another counter is already counting");
  open_ops.clear();  // an earlier counter removed mid-op leaves its frames behind
  handle_ = at::addThreadLocalCallback(at::RecordFunctionCallback(&OpCounter::on_start, &OpCounter::on_end)
                                           .needsInputs(true)
                                           .needsOutputs(true)
                                           .scopes({at::RecordScope::FUNCTION}));
}

OpCounter::~OpCounter() {
  at::removeCallback(handle_);
  active.store(nullptr);
}

void OpCounter::count_activation_casts(ActivationRule rule) { activations_ = std::move(rule); }

void OpCounter::restart() {
  std::lock_guard<std::mutex> lock(mu_);
  pending_ = {};
  pending_sync_ops_.clear();
  pending_by_op_.clear();
}

void OpCounter::lap(size_t phase) {
  std::lock_guard<std::mutex> lock(mu_);
  counts_.at(phase) += pending_;
  for (const auto& [name, n] : pending_sync_ops_) sync_ops_[name] += n;
  for (const auto& [name, c] : pending_by_op_) by_op_[name] += c;
  pending_ = {};
  pending_sync_ops_.clear();
  pending_by_op_.clear();
}

std::vector<OpCounts> OpCounter::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

OpCounts OpCounter::total() const {
  OpCounts t;
  for (const OpCounts& c : counts()) t += c;
  return t;
}

std::map<std::string, int64_t> OpCounter::sync_ops() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sync_ops_;
}

std::map<std::string, OpCounts> OpCounter::by_op() const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_op_;
}

void OpCounter::record(const OpCounts& c, const std::string& sync, const std::string& kernel) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_ += c;
  if (!kernel.empty()) pending_by_op_[kernel] += c;
  if (!sync.empty()) {
    ++pending_.syncs;
    ++pending_sync_ops_[sync];
  }
}

namespace {

// The by-op name: copies apart by what they convert ("aten::copy_ (Float to BFloat16)"), the largest share.
std::string kernel_name(const std::string& name, const OpInputs& in) {
  if (name != "aten::copy_" || in.first_dtype == at::ScalarType::Undefined ||
      in.second_dtype == at::ScalarType::Undefined)
    return name;
  if (in.first_dtype == in.second_dtype) return name + " (same dtype)";
  return name + " (" + c10::toString(in.second_dtype) + " to " + c10::toString(in.first_dtype) + ")";
}

}  // namespace

std::unique_ptr<at::ObserverContext> OpCounter::on_start(const at::RecordFunction& fn) {
  if (!starts_with_aten(fn.name())) return nullptr;
  const std::string name = fn.name();
  const bool inside_multi_tensor = !open_ops.empty() && open_ops.back().multi_tensor;
  if (!open_ops.empty()) open_ops.back().has_child = true;
  open_ops.push_back({false, false, inside_multi_tensor || is_multi_tensor(name), {}});
  if (inside_multi_tensor) return nullptr;
  static const ActivationRule no_rule;
  OpCounter* counter = active.load();
  open_ops.back().inputs = read_inputs(fn.inputs(), counter != nullptr ? counter->activations_ : no_rule);
  std::string sync = data_dependent_ops().count(name) ? name : "";
  if (name == "aten::copy_") sync = copy_sync(fn.inputs());
  if (counter != nullptr && !sync.empty()) counter->record({}, sync);
  return nullptr;
}

void OpCounter::on_end(const at::RecordFunction& fn, at::ObserverContext*) {
  if (!starts_with_aten(fn.name()) || open_ops.empty()) return;
  const OpenOp op = std::move(open_ops.back());
  open_ops.pop_back();
  const std::string name = fn.name();
  const bool work = !is_metadata_op(name);
  if (!open_ops.empty()) open_ops.back().has_work_below |= work || op.has_work_below;
  if (!open_ops.empty() && open_ops.back().multi_tensor) return;  // counted as its multi-tensor op
  OpCounter* counter = active.load();
  if (counter == nullptr) return;
  OpCounts c;
  c.ops = op.multi_tensor || !op.has_child ? 1 : 0;
  c.kernels = op.multi_tensor || (work && !op.has_work_below) ? 1 : 0;
  if (c.kernels > 0) {
    if (!is_compute_bound_op(name)) {
      const Bytes moved = kernel_bytes(name, fn.overload_name(), op.inputs, fn.outputs(), counter->activations_);
      c.bytes = moved.all;
      c.per_sample_bytes = moved.per_sample;
    }
    c.casts = is_activation_cast(name, op.inputs, fn.outputs(), counter->activations_) ? 1 : 0;
  }
  counter->record(c, "", c.kernels > 0 ? kernel_name(name, op.inputs) : "");
}

}  // namespace hamgan
