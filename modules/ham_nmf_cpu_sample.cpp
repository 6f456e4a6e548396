// One sample's NMF factorisation for the fused CPU kernel (see ham_nmf_cpu.h and
// ham_nmf_cpu_kernels.h): the K local steps with the rank R held in registers, and the load of
// a sample into rows of positions.
#include <algorithm>
#include <cmath>
#include <limits>

#include "modules/ham_nmf_cpu_kernels.h"

namespace hamgan::nmf_cpu {
namespace {

// How many 8-float vectors of positions (DᵀX) or rows of X (X C) one register tile spans: two
// while the R accumulators of each still leave room in AVX2's 16 registers, else one.
template <int R>
constexpr int kVectorsPerTile = R <= 4 ? 2 : 1;

// xtd = DᵀX, R rows of positions; a tile of positions × R ranks stays in registers over d.
template <int R>
HAMGAN_INLINE void bases_times_x(const SampleBuffers& s) {
  constexpr int V = kVectorsPerTile<R>;
  for (int64_t j = 0; j < s.n_pad; j += V * kLanes) {
    Vec8 acc[V][R];
    for (int v = 0; v < V; ++v)
      for (int k = 0; k < R; ++k) acc[v][k] = broadcast(0.f);
    for (int64_t i = 0; i < s.d; ++i) {
      Vec8 xv[V];
      for (int v = 0; v < V; ++v) xv[v] = load8(s.x + i * s.n_pad + j + v * kLanes);
      for (int k = 0; k < R; ++k) {
        const Vec8 w = broadcast(s.bases[i * R + k]);
        for (int v = 0; v < V; ++v) acc[v][k] += w * xv[v];
      }
    }
    for (int v = 0; v < V; ++v)
      for (int k = 0; k < R; ++k) store8(s.xtd + k * s.n_pad + j + v * kLanes, acc[v][k]);
  }
}

// xc rows i … i+V−1 = those rows of X times the R code rows; V·R accumulators stay in registers over n.
template <int R, int V>
HAMGAN_INLINE void x_times_codes(const SampleBuffers& s, int64_t i) {
  Vec8 acc[V][R];
  for (int v = 0; v < V; ++v)
    for (int k = 0; k < R; ++k) acc[v][k] = broadcast(0.f);
  for (int64_t j = 0; j < s.n_pad; j += kLanes) {
    Vec8 xv[V];
    for (int v = 0; v < V; ++v) xv[v] = load8(s.x + (i + v) * s.n_pad + j);
    for (int k = 0; k < R; ++k) {
      const Vec8 ck = load8(s.codes + k * s.n_pad + j);
      for (int v = 0; v < V; ++v) acc[v][k] += xv[v] * ck;
    }
  }
  for (int v = 0; v < V; ++v)
    for (int k = 0; k < R; ++k) s.xc[(i + v) * R + k] = lane_sum(acc[v][k]);
}

// C₀ = softmax_r(XᵀD / T) on the real positions, 0 on the padding.
template <int R>
HAMGAN_INLINE void init_codes(const SampleBuffers& s, float temperature) {
  bases_times_x<R>(s);
  for (int64_t j = 0; j < s.n_pad; ++j) {
    if (j >= s.n) {
      for (int k = 0; k < R; ++k) s.codes[k * s.n_pad + j] = 0.f;
      continue;
    }
    float logits[R], top = -std::numeric_limits<float>::infinity(), sum = 0.f;
    for (int k = 0; k < R; ++k) top = std::max(top, logits[k] = s.xtd[k * s.n_pad + j] / temperature);
    for (int k = 0; k < R; ++k) sum += (logits[k] = std::exp(logits[k] - top));
    for (int k = 0; k < R; ++k) s.codes[k * s.n_pad + j] = logits[k] / sum;
  }
}

// dtd = DᵀD (R × R).
template <int R>
HAMGAN_INLINE void bases_gram(const SampleBuffers& s, float* dtd) {
  for (int k = 0; k < R; ++k)
    for (int l = 0; l < R; ++l) {
      float sum = 0.f;
      for (int64_t i = 0; i < s.d; ++i) sum += s.bases[i * R + k] * s.bases[i * R + l];
      dtd[k * R + l] = sum;
    }
}

// One local step: C ← C ⊙ (XᵀD) / (C DᵀD + ε), then D ← D ⊙ (X C) / (D CᵀC + ε) with the new C.
template <int R>
HAMGAN_INLINE void nmf_step(const SampleBuffers& s) {
  bases_times_x<R>(s);
  float dtd[R * R], ctc[R * R];
  bases_gram<R>(s, dtd);
  for (int64_t j = 0; j < s.n_pad; j += kLanes) {
    Vec8 c[R], updated[R];
    for (int k = 0; k < R; ++k) c[k] = load8(s.codes + k * s.n_pad + j);
    for (int k = 0; k < R; ++k) {
      Vec8 den = broadcast(0.f);
      for (int l = 0; l < R; ++l) den += c[l] * dtd[l * R + k];
      updated[k] = load8(s.xtd + k * s.n_pad + j) / (den + s.eps) * c[k];
    }
    for (int k = 0; k < R; ++k) store8(s.codes + k * s.n_pad + j, updated[k]);
  }
  // CᵀC of the new codes (symmetric: the upper triangle, mirrored).
  for (int k = 0; k < R; ++k)
    for (int l = k; l < R; ++l) {
      Vec8 acc = broadcast(0.f);
      for (int64_t j = 0; j < s.n_pad; j += kLanes) acc += load8(s.codes + k * s.n_pad + j) * load8(s.codes + l * s.n_pad + j);
      ctc[k * R + l] = ctc[l * R + k] = lane_sum(acc);
    }
  // X C: tiles of V rows of X against the R code rows, then single rows for what d leaves over.
  constexpr int V = kVectorsPerTile<R>;
  int64_t i = 0;
  for (; i + V <= s.d; i += V) x_times_codes<R, V>(s, i);
  for (; i < s.d; ++i) x_times_codes<R, 1>(s, i);
  for (int64_t row = 0; row < s.d; ++row) {
    float updated[R];
    for (int k = 0; k < R; ++k) {
      float den = 0.f;
      for (int l = 0; l < R; ++l) den += s.bases[row * R + l] * ctc[l * R + k];
      updated[k] = s.xc[row * R + k] / (den + s.eps) * s.bases[row * R + k];
    }
    for (int k = 0; k < R; ++k) s.bases[row * R + k] = updated[k];
  }
}

// The one-step gradient's final code update with the last D: S = C / (C DᵀD + ε) into `scale`,
// then C ← (XᵀD) ⊙ S, the value of one more code update.
template <int R>
HAMGAN_INLINE void one_step_codes(const SampleBuffers& s, float* scale) {
  bases_times_x<R>(s);
  float dtd[R * R];
  bases_gram<R>(s, dtd);
  for (int64_t j = 0; j < s.n_pad; j += kLanes) {
    Vec8 c[R];
    for (int k = 0; k < R; ++k) c[k] = load8(s.codes + k * s.n_pad + j);
    for (int k = 0; k < R; ++k) {
      Vec8 den = broadcast(0.f);
      for (int l = 0; l < R; ++l) den += c[l] * dtd[l * R + k];
      const Vec8 sk = c[k] / (den + s.eps);
      store8(scale + k * s.n_pad + j, sk);
      store8(s.codes + k * s.n_pad + j, load8(s.xtd + k * s.n_pad + j) * sk);
    }
  }
}

// K local steps, then, when `scale` is given, the final differentiated code update.
template <int R>
HAMGAN_INLINE void factorize(const SampleBuffers& s, int64_t steps, float temperature, float* scale) {
  init_codes<R>(s, temperature);
  for (int64_t k = 0; k < steps; ++k) nmf_step<R>(s);
  if (scale) one_step_codes<R>(s, scale);
}

// Sample x[b] (d × n with strides sd, sn) into rows of positions (d, n_pad), rectified when kRectify.
// Row by row, so the writes stream; channels_last's reads (stride d) stay within the sample's few KiB.
// std::max keeps a NaN (as torch::relu does), so a broken step still shows as non-finite.
template <bool kRectify, typename Source>
HAMGAN_INLINE void load_rows(const Source* src, int64_t sd, int64_t sn, int64_t d, int64_t n, int64_t n_pad,
                             float* rows) {
  for (int64_t i = 0; i < d; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = static_cast<float>(src[i * sd + j * sn]);
      rows[i * n_pad + j] = kRectify ? std::max(v, 0.f) : v;
    }
}

}  // namespace

HAMGAN_CPU_CLONES void factorize_sample(int64_t rank, const SampleBuffers& s, int64_t steps, float temperature,
                                        float* scale) {
  switch (rank) {
    case 1: return factorize<1>(s, steps, temperature, scale);
    case 2: return factorize<2>(s, steps, temperature, scale);
    case 3: return factorize<3>(s, steps, temperature, scale);
    case 4: return factorize<4>(s, steps, temperature, scale);
    case 5: return factorize<5>(s, steps, temperature, scale);
    case 6: return factorize<6>(s, steps, temperature, scale);
    case 7: return factorize<7>(s, steps, temperature, scale);
    case 8: return factorize<8>(s, steps, temperature, scale);
  }
}

HAMGAN_CPU_CLONES void load_sample(bool rectify, const float* src, int64_t sd, int64_t sn, int64_t d, int64_t n,
                                   int64_t n_pad, float* rows) {
  if (rectify) return load_rows<true>(src, sd, sn, d, n, n_pad, rows);
  load_rows<false>(src, sd, sn, d, n, n_pad, rows);
}

HAMGAN_CPU_CLONES void load_sample(bool rectify, const c10::BFloat16* src, int64_t sd, int64_t sn, int64_t d,
                                   int64_t n, int64_t n_pad, float* rows) {
  if (rectify) return load_rows<true>(src, sd, sn, d, n, n_pad, rows);
  load_rows<false>(src, sd, sn, d, n, n_pad, rows);
}

}  // namespace hamgan::nmf_cpu
