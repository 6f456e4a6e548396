#pragma once
// The arithmetic every metric is computed in, whatever the training's math
// mode: `tf32` and `bf16` runs set TF32 process-wide (gan/step/precision.h),
// and an Inception or a generator run in TF32 gives another FID than the same
// checkpoint evaluated in fp32, while the protocol stamp would not say so.
// Inside the scope: TF32 off for cuBLAS and cuDNN, float32 matmuls at
// "highest" precision, cuDNN deterministic and not benchmarking, autocast off;
// everything is put back when the scope ends. The flags are process-wide on CPU
// builds too, so tests observe them there.
#include <string>

#include <c10/core/DeviceType.h>

namespace hamgan {

// What the stamp records as the extractor's arithmetic.
inline constexpr const char* kExactArithmetic = "fp32, TF32 off, deterministic cuDNN";

class ExactArithmeticScope {
 public:
  ExactArithmeticScope();
  ~ExactArithmeticScope();
  ExactArithmeticScope(const ExactArithmeticScope&) = delete;
  ExactArithmeticScope& operator=(const ExactArithmeticScope&) = delete;

 private:
  bool tf32_cublas_, tf32_cudnn_, deterministic_, benchmark_, autocast_cpu_, autocast_cuda_;
  std::string matmul_precision_;
};

// Whether the flags are as the scope sets them (for checks and tests).
bool arithmetic_is_exact();

}  // namespace hamgan
