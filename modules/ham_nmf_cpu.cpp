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

// Sample x[b] (d × n with strides sd, sn) into rows of positions (d, n_pad), rectified when kRectify.
// Row by row, so the writes stream; channels_last's reads (stride d) stay within the sample's few KiB.
// std::max keeps a NaN (as torch::relu does), so a broken step still shows as non-finite.
template <bool kRectify>
HAMGAN_INLINE void load_rows(const float* src, int64_t sd, int64_t sn, int64_t d, int64_t n, int64_t n_pad,
                             float* rows) {
  for (int64_t i = 0; i < d; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = src[i * sd + j * sn];
      rows[i * n_pad + j] = kRectify ? std::max(v, 0.f) : v;
    }
}

HAMGAN_CPU_CLONES void load_sample(bool rectify, const float* src, int64_t sd, int64_t sn, int64_t d, int64_t n,
                                   int64_t n_pad, float* rows) {
  if (rectify) return load_rows<true>(src, sd, sn, d, n, n_pad, rows);
  load_rows<false>(src, sd, sn, d, n, n_pad, rows);
}

// Backward of C = (XᵀD) ⊙ S through the ReLU, for one sample: ∂X[i, j] = [X[i, j] > 0] Σ_k D[i, k] (G ⊙ S)[j, k].
// Both layouts of ∂X are out[o][c] = [positive] Σ_k u[k][o] v[k][c] over an outer index o and the
// contiguous index c: (u, v) = ((G ⊙ S)ᵀ, Dᵀ) for channels_last's rows of positions, (Dᵀ, (G ⊙ S)ᵀ)
// for (d, n). u is (R, outer), v (R, inner_pad), vectorised along c. Multiplying by the mask, as the
// ATen path does, keeps a NaN gradient visible.
template <int R>
HAMGAN_INLINE void masked_outer_sum(const float* u, const float* v, int64_t outer, int64_t inner, int64_t inner_pad,
                                    const bool* positive, float* out) {
  for (int64_t o = 0; o < outer; ++o) {
    float uo[R];
    for (int k = 0; k < R; ++k) uo[k] = u[k * outer + o];
    const bool* keep = positive + o * inner;
    float* dst = out + o * inner;
    int64_t c = 0;
    for (; c + kLanes <= inner; c += kLanes) {
      Vec8 acc = broadcast(0.f);
      for (int k = 0; k < R; ++k) acc += broadcast(uo[k]) * load8(v + k * inner_pad + c);
      store8(dst + c, acc * load_mask8(keep + c));
    }
    for (; c < inner; ++c) {
      float sum = 0.f;
      for (int k = 0; k < R; ++k) sum += uo[k] * v[k * inner_pad + c];
      dst[c] = sum * (keep[c] ? 1.f : 0.f);
    }
  }
}

HAMGAN_CPU_CLONES void masked_outer_sum_sample(int64_t rank, const float* u, const float* v, int64_t outer,
                                               int64_t inner, int64_t inner_pad, const bool* positive, float* out) {
  switch (rank) {
    case 1: return masked_outer_sum<1>(u, v, outer, inner, inner_pad, positive, out);
    case 2: return masked_outer_sum<2>(u, v, outer, inner, inner_pad, positive, out);
    case 3: return masked_outer_sum<3>(u, v, outer, inner, inner_pad, positive, out);
    case 4: return masked_outer_sum<4>(u, v, outer, inner, inner_pad, positive, out);
    case 5: return masked_outer_sum<5>(u, v, outer, inner, inner_pad, positive, out);
    case 6: return masked_outer_sum<6>(u, v, outer, inner, inner_pad, positive, out);
    case 7: return masked_outer_sum<7>(u, v, outer, inner, inner_pad, positive, out);
    case 8: return masked_outer_sum<8>(u, v, outer, inner, inner_pad, positive, out);
  }
}

// Whether each sample of x (B, d, n) is one dense block, (d, n) or channels_last's (n, d): the
// layouts the ReLU mask and ∂X share with x, offset for offset.
bool samples_are_dense_blocks(const torch::Tensor& x) {
  const int64_t d = x.size(1), n = x.size(2);
  const bool packed = x.stride(2) == 1 && x.stride(1) == n, rows = x.stride(1) == 1 && x.stride(2) == d;
  return (packed || rows) && x.stride(0) == d * n;
}

// What one pass over the batch computes besides the K local steps.
struct PassOptions {
  bool rectify = false;        // ReLU on load
  bool final_step = false;     // the one-step final code update, with its scale S
  bool keep_positive = false;  // the ReLU mask x > 0 for the backward pass, in x's layout
};

struct PassResult {
  torch::Tensor bases, codes, scale, positive;
};

PassResult factorize_batch(const torch::Tensor& x, const torch::Tensor& bases_in, int64_t steps, double temperature,
                           double eps, const PassOptions& o) {
  const int64_t batch = x.size(0), d = x.size(1), n = x.size(2), rank = bases_in.size(2);
  const int64_t n_pad = (n + kTile - 1) / kTile * kTile;
  PassResult out;
  out.bases = bases_in.clone(at::MemoryFormat::Contiguous);  // updated in place, sample by sample
  out.codes = torch::empty({batch, n, rank}, x.options());
  if (o.final_step) out.scale = torch::empty({batch, n, rank}, x.options());
  if (o.keep_positive) out.positive = torch::empty_strided(x.sizes(), x.strides(), x.options().dtype(torch::kBool));
  const float* xp = x.data_ptr<float>();
  const int64_t sb = x.stride(0), sd = x.stride(1), sn = x.stride(2);
  float* bp = out.bases.data_ptr<float>();
  float* cp = out.codes.data_ptr<float>();
  float* sp = o.final_step ? out.scale.data_ptr<float>() : nullptr;
  bool* mp = o.keep_positive ? out.positive.data_ptr<bool>() : nullptr;
  at::parallel_for(0, batch, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> x_rows(d * n_pad, 0.f), code_rows(rank * n_pad), xtd(rank * n_pad), xc(d * rank);
    std::vector<float> scale_rows(sp ? rank * n_pad : 0);
    for (int64_t b = begin; b < end; ++b) {
      const float* sample = xp + b * sb;
      load_sample(o.rectify, sample, sd, sn, d, n, n_pad, x_rows.data());
      if (mp)  // x and the mask share the sample's dense layout (samples_are_dense_blocks)
        for (int64_t t = 0; t < d * n; ++t) mp[b * d * n + t] = sample[t] > 0.f;
      const SampleBuffers s{x_rows.data(), code_rows.data(), xtd.data(), xc.data(), bp + b * d * rank,
                            d,           n,                n_pad,      static_cast<float>(eps)};
      factorize_sample(rank, s, steps, static_cast<float>(temperature), sp ? scale_rows.data() : nullptr);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t k = 0; k < rank; ++k) cp[(b * n + j) * rank + k] = code_rows[k * n_pad + j];
      if (sp)
        for (int64_t j = 0; j < n; ++j)
          for (int64_t k = 0; k < rank; ++k) sp[(b * n + j) * rank + k] = scale_rows[k * n_pad + j];
    }
  });
  return out;
}

}  // namespace

bool fused_nmf_takes(const torch::Tensor& x, const torch::Tensor& bases) {
  return x.device().is_cpu() && bases.device().is_cpu() && x.scalar_type() == torch::kFloat &&
         bases.scalar_type() == torch::kFloat && x.dim() == 3 && bases.dim() == 3 && x.size(0) == bases.size(0) &&
         x.size(1) == bases.size(1) && x.size(2) > 0 && bases.size(2) >= 1 && bases.size(2) <= kFusedNmfMaxRank;
}

bool fused_nmf_applies(const torch::Tensor& x, const torch::Tensor& bases) {
  const bool wants_graph = torch::GradMode::is_enabled() && (x.requires_grad() || bases.requires_grad());
  return !wants_graph && fused_nmf_takes(x, bases);
}

std::pair<torch::Tensor, torch::Tensor> nmf_local_steps_cpu(const torch::Tensor& x, const torch::Tensor& bases,
                                                            int64_t steps, double temperature, double eps) {
  TORCH_CHECK(fused_nmf_applies(x, bases), "ham: the fused NMF kernel takes CPU float32 x (B, d, n) and bases (B, d, r ≤ 8), got ",
              x.sizes(), " and ", bases.sizes());
  auto r = factorize_batch(x, bases, steps, temperature, eps, PassOptions{});
  return {r.bases, r.codes};
}

NmfOneStepCpu nmf_one_step_cpu(const torch::Tensor& x_in, const torch::Tensor& bases, int64_t steps,
                               double temperature, double eps, bool keep_for_backward) {
  TORCH_CHECK(fused_nmf_takes(x_in, bases), "ham: the fused NMF kernel takes CPU float32 x (B, d, n) and bases (B, d, r ≤ 8), got ",
              x_in.sizes(), " and ", bases.sizes());
  torch::NoGradGuard no_grad;
  // The mask and ∂X take x's layout, so it must be one the backward pass reads.
  const auto x = samples_are_dense_blocks(x_in) ? x_in : x_in.contiguous();
  PassOptions o;
  o.rectify = o.final_step = true;
  o.keep_positive = keep_for_backward;
  auto r = factorize_batch(x, bases.detach(), steps, temperature, eps, o);
  return {r.bases, r.codes, r.scale, r.positive};
}

torch::Tensor nmf_one_step_backward_cpu(const torch::Tensor& grad_codes, const NmfOneStepCpu& saved) {
  TORCH_CHECK(saved.positive.defined() && samples_are_dense_blocks(saved.positive),
              "ham: the fused NMF backward needs the forward's mask (keep_for_backward)");
  const int64_t batch = saved.positive.size(0), d = saved.positive.size(1), n = saved.positive.size(2);
  const int64_t rank = saved.bases.size(2);
  const auto grad = grad_codes.to(torch::kFloat).contiguous();
  const std::vector<int64_t> codes_shape{batch, n, rank};
  TORCH_CHECK(grad.sizes() == codes_shape, "ham: gradient of the codes has shape ", grad.sizes(), ", expected ",
              codes_shape);
  auto grad_x = torch::empty_strided(saved.positive.sizes(), saved.positive.strides(), grad.options());
  // The two layouts of samples_are_dense_blocks; with d or n = 1 both read the same offsets.
  const bool rows_of_positions = saved.positive.stride(1) == 1 && d > 1;
  const int64_t outer = rows_of_positions ? n : d, inner = rows_of_positions ? d : n;
  const int64_t inner_pad = (inner + kLanes - 1) / kLanes * kLanes;
  const int64_t gs_stride = rows_of_positions ? n : inner_pad, bases_stride = rows_of_positions ? inner_pad : d;
  const float* gp = grad.data_ptr<float>();
  const float* sp = saved.scale.data_ptr<float>();
  const float* bp = saved.bases.data_ptr<float>();
  const bool* mp = saved.positive.data_ptr<bool>();
  float* out = grad_x.data_ptr<float>();
  at::parallel_for(0, batch, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> gs_rows(rank * gs_stride, 0.f), bases_rows(rank * bases_stride, 0.f);
    for (int64_t b = begin; b < end; ++b) {
      // (G ⊙ S)ᵀ and Dᵀ, one row per rank.
      for (int64_t j = 0; j < n; ++j)
        for (int64_t k = 0; k < rank; ++k)
          gs_rows[k * gs_stride + j] = gp[(b * n + j) * rank + k] * sp[(b * n + j) * rank + k];
      for (int64_t i = 0; i < d; ++i)
        for (int64_t k = 0; k < rank; ++k) bases_rows[k * bases_stride + i] = bp[(b * d + i) * rank + k];
      const float* u = rows_of_positions ? gs_rows.data() : bases_rows.data();
      const float* v = rows_of_positions ? bases_rows.data() : gs_rows.data();
      masked_outer_sum_sample(rank, u, v, outer, inner, inner_pad, mp + b * d * n, out + b * d * n);
    }
  });
  return grad_x;
}

}  // namespace hamgan
