#include "metrics/exact_arithmetic.h"

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>

namespace hamgan {

ExactArithmeticScope::ExactArithmeticScope() {
  auto& ctx = at::globalContext();
  tf32_cublas_ = ctx.allowTF32CuBLAS();
  tf32_cudnn_ = ctx.allowTF32CuDNN();
  deterministic_ = ctx.deterministicCuDNN();
  benchmark_ = ctx.benchmarkCuDNN();
  matmul_precision_ = ctx.float32MatmulPrecision() == at::Float32MatmulPrecision::HIGHEST  ? "highest"
                      : ctx.float32MatmulPrecision() == at::Float32MatmulPrecision::HIGH ? "high"
                                                                                          : "medium";
  autocast_cpu_ = at::autocast::is_autocast_enabled(c10::DeviceType::CPU);
  autocast_cuda_ = at::autocast::is_autocast_enabled(c10::DeviceType::CUDA);
  ctx.setAllowTF32CuBLAS(false);
  ctx.setAllowTF32CuDNN(false);
  ctx.setFloat32MatmulPrecision("highest");
  ctx.setDeterministicCuDNN(true);
  ctx.setBenchmarkCuDNN(false);
  at::autocast::set_autocast_enabled(c10::DeviceType::CPU, false);
  at::autocast::set_autocast_enabled(c10::DeviceType::CUDA, false);
}

ExactArithmeticScope::~ExactArithmeticScope() {
  auto& ctx = at::globalContext();
  // Matmul precision first: setting it also sets cuBLAS's TF32 flag.
  ctx.setFloat32MatmulPrecision(matmul_precision_);
  ctx.setAllowTF32CuBLAS(tf32_cublas_);
  ctx.setAllowTF32CuDNN(tf32_cudnn_);
  ctx.setDeterministicCuDNN(deterministic_);
  ctx.setBenchmarkCuDNN(benchmark_);
  at::autocast::set_autocast_enabled(c10::DeviceType::CPU, autocast_cpu_);
  at::autocast::set_autocast_enabled(c10::DeviceType::CUDA, autocast_cuda_);
}

bool arithmetic_is_exact() {
  auto& ctx = at::globalContext();
  return !ctx.allowTF32CuBLAS() && !ctx.allowTF32CuDNN() && ctx.deterministicCuDNN() && !ctx.benchmarkCuDNN() &&
         ctx.float32MatmulPrecision() == at::Float32MatmulPrecision::HIGHEST &&
         !at::autocast::is_autocast_enabled(c10::DeviceType::CPU) &&
         !at::autocast::is_autocast_enabled(c10::DeviceType::CUDA);
}

}  // namespace hamgan
