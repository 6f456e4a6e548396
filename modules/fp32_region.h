#pragma once
// Arithmetic that must stay float32 when the caller runs under bf16/fp16 autocast
// (gan/step/precision.h): the Hamburger's decomposition (ε = 1e-6 underflows in
// bf16's 8-bit mantissa next to O(1) values), spectral norm's power iteration and σ,
// batch-norm statistics and softmaxes. Outside autocast both are no-ops.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

namespace hamgan {

// Autocast off for the scope (CPU and CUDA), restored on exit.
class Fp32Region {
 public:
  Fp32Region()
      : cpu_(at::autocast::is_autocast_enabled(at::kCPU)), cuda_(at::autocast::is_autocast_enabled(at::kCUDA)) {
    if (cpu_) at::autocast::set_autocast_enabled(at::kCPU, false);
    if (cuda_) at::autocast::set_autocast_enabled(at::kCUDA, false);
  }
  ~Fp32Region() {
    if (cpu_) at::autocast::set_autocast_enabled(at::kCPU, true);
    if (cuda_) at::autocast::set_autocast_enabled(at::kCUDA, true);
  }
  Fp32Region(const Fp32Region&) = delete;
  Fp32Region& operator=(const Fp32Region&) = delete;

 private:
  bool cpu_, cuda_;
};

// bf16 or fp16: what autocast computes in, and what the float32 parts cast up.
inline bool is_reduced_float(const torch::Tensor& t) {
  return t.scalar_type() == torch::kBFloat16 || t.scalar_type() == torch::kHalf;
}

// bf16/fp16 tensors up-cast to float32; float32 and float64 returned as they are.
inline torch::Tensor to_fp32_if_reduced(const torch::Tensor& t) { return is_reduced_float(t) ? t.to(torch::kFloat) : t; }

}  // namespace hamgan
