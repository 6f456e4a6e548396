#pragma once
// A dispatcher observer for device-checking runs (tests/train/meta_device_test.cpp).
// Meta kernels compute shapes and do not look at devices, so every op a run
// dispatches is watched as well: one that gets a CPU tensor (other than a 0-dim
// scalar, which CUDA takes too) beside a meta tensor is recorded. An explicit
// copy to the device (`.to`, `copy_`) is a transfer, not a mix.
#include <ATen/record_function.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hamgan::test {

class DeviceMixWatch {
 public:
  DeviceMixWatch()
      : handle_(at::addGlobalCallback(at::RecordFunctionCallback(&on_op)
                                          .needsInputs(true)
                                          .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}))) {}
  ~DeviceMixWatch() { at::removeCallback(handle_); }
  DeviceMixWatch(const DeviceMixWatch&) = delete;
  DeviceMixWatch& operator=(const DeviceMixWatch&) = delete;

  // Every op recorded so far in this process, in order.
  static std::vector<std::string> mixed() {
    std::lock_guard<std::mutex> lock(mu());
    return ops();
  }

 private:
  static std::unique_ptr<at::ObserverContext> on_op(const at::RecordFunction& fn) {
    bool meta = false, cpu = false;
    for (const c10::IValue& v : fn.inputs()) {
      if (!v.isTensor() || !v.toTensor().defined()) continue;
      const at::Tensor& t = v.toTensor();
      meta |= t.is_meta();
      cpu |= t.is_cpu() && t.dim() > 0;
    }
    const std::string op = fn.name();
    if (meta && cpu && op != "aten::copy_" && op != "aten::_to_copy") {
      std::lock_guard<std::mutex> lock(mu());
      ops().push_back(op);
    }
    return nullptr;
  }
  static std::mutex& mu() {
    static std::mutex m;
    return m;
  }
  static std::vector<std::string>& ops() {
    static std::vector<std::string> v;
    return v;
  }
  at::CallbackHandle handle_;
};

inline std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace hamgan::test
