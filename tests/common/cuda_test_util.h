#pragma once
// The device the CUDA tests run on, and what they do where there is none. On a
// machine without CUDA they skip; with HAMGAN_REQUIRE_CUDA=1 (bench/gpu_session.sh
// test) a skip becomes a failure, so a GPU box where CUDA did not start cannot
// report "tests passed". HAMGAN_TEST_DEVICE names the device (default cuda).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>
#include <string>

#include "core/cuda_probe.h"

namespace hamgan::test {

inline std::string cuda_test_device() {
  const char* d = std::getenv("HAMGAN_TEST_DEVICE");
  return d && *d ? d : "cuda";
}

inline bool cuda_required() {
  const char* r = std::getenv("HAMGAN_REQUIRE_CUDA");
  return r && std::string(r) == "1";
}

// Why the CUDA tests cannot run here ("" when they can).
inline std::string cuda_missing() {
  const CudaProbe& p = cuda_probe();
  if (p.devices > 0) return "";
  if (!p.libtorch_cuda) return "LibTorch without CUDA";
  return p.nvidia_gpus ? cuda_start_failure(p) : "no CUDA device";
}

}  // namespace hamgan::test

// First statement of a CUDA test: skip without CUDA, fail where CUDA is required.
#define REQUIRE_CUDA_OR_SKIP()                                                                      \
  do {                                                                                              \
    const std::string hamgan_missing_cuda = ::hamgan::test::cuda_missing();                         \
    if (!hamgan_missing_cuda.empty()) {                                                             \
      if (::hamgan::test::cuda_required()) FAIL() << "HAMGAN_REQUIRE_CUDA=1: " << hamgan_missing_cuda; \
      GTEST_SKIP() << hamgan_missing_cuda;                                                          \
    }                                                                                               \
  } while (0)
