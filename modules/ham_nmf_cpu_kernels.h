#pragma once
// Internals shared by the fused CPU NMF kernel's files (ham_nmf_cpu.cpp: the batch driver,
// ham_nmf_cpu_sample.cpp: one sample's factorisation, ham_nmf_cpu_backward.cpp: ∂X); not an API.
// Vectors are GCC/Clang vector extensions of 8 floats; on x86-64 with GCC the per-sample kernels
// are compiled twice (AVX2+FMA and the baseline) and picked at load time.
#include <torch/torch.h>

#include <cstdint>
#include <cstring>

#pragma GCC diagnostic ignored "-Wpsabi"  // 32-byte vectors between inline helpers: no ABI crossing

#define HAMGAN_INLINE inline __attribute__((always_inline))
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HAMGAN_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HAMGAN_CPU_CLONES
#endif

namespace hamgan::nmf_cpu {

typedef float Vec8 __attribute__((vector_size(32)));
constexpr int64_t kLanes = 8;
constexpr int64_t kTile = 2 * kLanes;  // positions are padded to a whole number of the widest tile

HAMGAN_INLINE Vec8 load8(const float* p) {
  Vec8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
HAMGAN_INLINE void store8(float* p, Vec8 v) { std::memcpy(p, &v, sizeof v); }
// Eight bools (bytes 0 or 1) as 0.f or 1.f lanes, widened in registers.
HAMGAN_INLINE Vec8 load_mask8(const bool* p) {
  typedef unsigned char Bytes8 __attribute__((vector_size(8)));
  Bytes8 bytes;
  std::memcpy(&bytes, p, sizeof bytes);
  return __builtin_convertvector(bytes, Vec8);
}
HAMGAN_INLINE Vec8 broadcast(float a) { return Vec8{a, a, a, a, a, a, a, a}; }
HAMGAN_INLINE float lane_sum(Vec8 v) {
  float s = 0;
  for (int64_t l = 0; l < kLanes; ++l) s += v[l];
  return s;
}

// One sample in its own buffers: X as (d, n_pad) rows of positions, zero-padded to a whole
// register tile (padded positions get codes 0, so they add nothing to any product), Cᵀ and DᵀX as
// (R, n_pad), D as (d, R).
struct SampleBuffers {
  float* x;      // (d, n_pad)
  float* codes;  // (R, n_pad): Cᵀ
  float* xtd;    // (R, n_pad): DᵀX
  float* xc;     // (d, R): X C
  float* bases;  // (d, R), updated in place
  int64_t d, n, n_pad;
  float eps;     // the updates' ε
};

// C₀ = softmax_r(XᵀD / T), `steps` local steps, then, when `scale` is given, the one-step
// gradient's final code update with its S written to `scale` ((R, n_pad)). 1 ≤ rank ≤ 8.
void factorize_sample(int64_t rank, const SampleBuffers& s, int64_t steps, float temperature, float* scale);

// Sample x[b] (d × n with strides sd, sn) into rows of positions (d, n_pad), rectified when `rectify`.
// A bf16 sample is widened on load (exactly), so a bf16 x is read as stored, never copied to float32.
void load_sample(bool rectify, const float* src, int64_t sd, int64_t sn, int64_t d, int64_t n, int64_t n_pad,
                 float* rows);
void load_sample(bool rectify, const c10::BFloat16* src, int64_t sd, int64_t sn, int64_t d, int64_t n, int64_t n_pad,
                 float* rows);

// Whether each sample of x (B, d, n) is one dense block, (d, n) or channels_last's (n, d): the
// layouts the ReLU mask and ∂X share with x, offset for offset.
bool samples_are_dense_blocks(const torch::Tensor& x);

}  // namespace hamgan::nmf_cpu
