#pragma once
// How the step functions compute (docs/training.md "Precision"):
//   fp32  strict float32: TF32 off in cuBLAS and cuDNN (the reference)
//   tf32  float32 storage, TF32 tensor-core matmuls/convolutions allowed (CUDA; on CPU the same as fp32)
//   bf16  the forward passes of G and D under bf16 autocast; weights, gradients, optimiser and EMA stay fp32
// plus channels_last (NHWC activations and conv weights). The step functions open a
// PrecisionScope around every forward pass; losses are computed outside it.
#include <torch/torch.h>

#include <string>

#include "core/enum_names.h"

namespace hamgan {

// The config's `precision`: a mode, or auto (the device decides, resolve_precision).
enum class PrecisionChoice { kAuto, kFp32, kTf32, kBf16 };
const EnumNames<PrecisionChoice>& precision_choice_names();  // auto, fp32, tf32, bf16

// The mode a run computes in, once resolved.
enum class PrecisionMode { kFp32, kTf32, kBf16 };
const EnumNames<PrecisionMode>& precision_mode_names();  // fp32, tf32, bf16

struct Precision {
  PrecisionMode mode = PrecisionMode::kFp32;
  bool channels_last = false;
  torch::DeviceType device_type = torch::kCPU;  // where autocast applies (bf16)
  std::string name() const;
  // Real images in the layout the networks compute in.
  torch::Tensor layout(const torch::Tensor& images) const;
};

// The config's `precision` on `device`: auto = tf32 on CUDA, fp32 on CPU. Throws ConfigError
// for bf16 on a device that cannot compute in it (found by a small bf16 matmul on the device,
// so a run resolves it once, in open_run).
Precision resolve_precision(PrecisionChoice precision, bool channels_last, const torch::Device& device);

// A warning for bf16 on a CPU whose `cpu_flags` (the flags line of /proc/cpuinfo) name
// neither avx512_bf16 nor amx_bf16: autocast then emulates bf16, several times slower
// than fp32. Empty when bf16 is native, or on another device.
std::string bf16_speed_warning(const Precision& p, const std::string& cpu_flags);
// The "flags" line of /proc/cpuinfo (empty where there is none).
std::string cpu_flags();

// Sets the process-wide TF32 switches of cuBLAS and cuDNN for the mode (fp32: off; tf32, bf16: on)
// and turns cuDNN's benchmark mode on (the fastest algorithm per convolution shape).
void apply_math_mode(const Precision& p);

// Conv weights (4-d parameters) to channels_last, in place, when the policy asks for it.
void apply_memory_format(torch::nn::Module& m, const Precision& p);

// Entered around each forward pass of G and D: for bf16 turns autocast on for the
// device (restoring the previous state on exit); for fp32 and tf32 changes nothing.
class PrecisionScope {
 public:
  explicit PrecisionScope(const Precision& p);
  ~PrecisionScope();
  PrecisionScope(const PrecisionScope&) = delete;
  PrecisionScope& operator=(const PrecisionScope&) = delete;

 private:
  bool active_ = false;
  torch::DeviceType device_type_ = torch::kCPU;
  bool was_enabled_ = false;
  at::ScalarType previous_dtype_ = at::kFloat;
};

}  // namespace hamgan
