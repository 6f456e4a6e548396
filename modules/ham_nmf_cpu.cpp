// The fused CPU kernel for the Hamburger's local NMF steps (see ham_nmf_cpu.h).
// One sample at a time, in its own buffers: X as (d, n_pad) rows of positions, zero-padded to a
// whole register tile (padded positions get codes 0, so they add nothing to any product), Cᵀ and
// DᵀX as (r, n_pad), D as (d, r). Vectors are GCC/Clang vector extensions of 8 floats; on x86-64
// with GCC the kernel is compiled twice (AVX2+FMA and the baseline) and picked at load time.
#include "modules/ham_nmf_cpu.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#pragma GCC diagnostic ignored "-Wpsabi"  // 32-byte vectors between inline helpers: no ABI crossing

namespace hamgan {
namespace {

typedef float Vec8 __attribute__((vector_size(32)));
constexpr int64_t kLanes = 8;
constexpr int64_t kTile = 2 * kLanes;  // positions are padded to a whole number of the widest tile

#define HAMGAN_INLINE inline __attribute__((always_inline))
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HAMGAN_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HAMGAN_CPU_CLONES
#endif

HAMGAN_INLINE Vec8 load8(const float* p) {
  Vec8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
HAMGAN_INLINE void store8(float* p, Vec8 v) { std::memcpy(p, &v, sizeof v); }
HAMGAN_INLINE Vec8 broadcast(float a) { return Vec8{a, a, a, a, a, a, a, a}; }
HAMGAN_INLINE float lane_sum(Vec8 v) {
  float s = 0;
  for (int64_t l = 0; l < kLanes; ++l) s += v[l];
  return s;
}

struct SampleBuffers {
  float* x;      // (d, n_pad)
  float* codes;  // (R, n_pad): Cᵀ
  float* xtd;    // (R, n_pad): DᵀX
  float* xc;     // (d, R): X C
  float* bases;  // (d, R), updated in place
  int64_t d, n, n_pad;
  float eps;     // the updates' ε
};

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

// One local step: C ← C ⊙ (XᵀD) / (C DᵀD + ε), then D ← D ⊙ (X C) / (D CᵀC + ε) with the new C.
template <int R>
HAMGAN_INLINE void nmf_step(const SampleBuffers& s) {
  bases_times_x<R>(s);
  float dtd[R * R], ctc[R * R];
  for (int k = 0; k < R; ++k)
    for (int l = 0; l < R; ++l) {
      float sum = 0.f;
      for (int64_t i = 0; i < s.d; ++i) sum += s.bases[i * R + k] * s.bases[i * R + l];
      dtd[k * R + l] = sum;
    }
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

template <int R>
HAMGAN_INLINE void factorize(const SampleBuffers& s, int64_t steps, float temperature) {
  init_codes<R>(s, temperature);
  for (int64_t k = 0; k < steps; ++k) nmf_step<R>(s);
}

HAMGAN_CPU_CLONES void factorize_sample(int64_t rank, const SampleBuffers& s, int64_t steps, float temperature) {
  switch (rank) {
    case 1: return factorize<1>(s, steps, temperature);
    case 2: return factorize<2>(s, steps, temperature);
    case 3: return factorize<3>(s, steps, temperature);
    case 4: return factorize<4>(s, steps, temperature);
    case 5: return factorize<5>(s, steps, temperature);
    case 6: return factorize<6>(s, steps, temperature);
    case 7: return factorize<7>(s, steps, temperature);
    case 8: return factorize<8>(s, steps, temperature);
  }
}

}  // namespace

bool fused_nmf_applies(const torch::Tensor& x, const torch::Tensor& bases) {
  const bool wants_graph = torch::GradMode::is_enabled() && (x.requires_grad() || bases.requires_grad());
  return !wants_graph && x.device().is_cpu() && bases.device().is_cpu() && x.scalar_type() == torch::kFloat &&
         bases.scalar_type() == torch::kFloat && x.dim() == 3 && bases.dim() == 3 && x.size(2) > 0 &&
         bases.size(2) >= 1 && bases.size(2) <= kFusedNmfMaxRank;
}

std::pair<torch::Tensor, torch::Tensor> nmf_local_steps_cpu(const torch::Tensor& x, const torch::Tensor& bases_in,
                                                            int64_t steps, double temperature, double eps) {
  TORCH_CHECK(fused_nmf_applies(x, bases_in) && x.size(0) == bases_in.size(0) && x.size(1) == bases_in.size(1),
              "ham: the fused NMF kernel takes CPU float32 x (B, d, n) and bases (B, d, r ≤ 8), got ", x.sizes(),
              " and ", bases_in.sizes());
  const int64_t batch = x.size(0), d = x.size(1), n = x.size(2), rank = bases_in.size(2);
  const int64_t n_pad = (n + kTile - 1) / kTile * kTile;
  torch::Tensor bases = bases_in.clone(at::MemoryFormat::Contiguous);  // updated in place, sample by sample
  torch::Tensor codes = torch::empty({batch, n, rank}, x.options());
  const float* xp = x.data_ptr<float>();
  const int64_t sb = x.stride(0), sd = x.stride(1), sn = x.stride(2);
  float* bp = bases.data_ptr<float>();
  float* cp = codes.data_ptr<float>();
  at::parallel_for(0, batch, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> x_rows(d * n_pad, 0.f), code_rows(rank * n_pad), xtd(rank * n_pad), xc(d * rank);
    for (int64_t b = begin; b < end; ++b) {
      for (int64_t i = 0; i < d; ++i)
        for (int64_t j = 0; j < n; ++j) x_rows[i * n_pad + j] = xp[b * sb + i * sd + j * sn];
      const SampleBuffers s{x_rows.data(), code_rows.data(), xtd.data(), xc.data(), bp + b * d * rank,
                            d,           n,                n_pad,      static_cast<float>(eps)};
      factorize_sample(rank, s, steps, static_cast<float>(temperature));
      for (int64_t j = 0; j < n; ++j)
        for (int64_t k = 0; k < rank; ++k) cp[(b * n + j) * rank + k] = code_rows[k * n_pad + j];
    }
  });
  return {bases, codes};
}

}  // namespace hamgan
