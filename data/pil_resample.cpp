#include "data/pil_resample.h"

#include <algorithm>
#include <cstring>

// On x86-64 with GCC the passes are compiled twice (AVX2 and the baseline)
// and picked at load time; the arithmetic is the same integer arithmetic.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HAMGAN_RESAMPLE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HAMGAN_RESAMPLE_CLONES
#endif
#define HAMGAN_RESAMPLE_INLINE inline __attribute__((always_inline))

namespace hamgan {
namespace {

constexpr int32_t kHalf = int32_t(1) << (kPilPrecisionBits - 1);

HAMGAN_RESAMPLE_INLINE uint8_t clip8(int32_t ss) {
  const int32_t v = ss >> kPilPrecisionBits;
  return v < 0 ? 0 : v > 255 ? 255 : static_cast<uint8_t>(v);
}

// Every output pixel gets the same number of taps n (the largest count): the
// window is moved left where it would pass the end and padded with zero
// weights, which add nothing to the sum. A fixed n lets the compiler unroll.
struct UniformTaps {
  int n = 0;
  std::vector<int> start;
  std::vector<int32_t> weights;  // out × n
};

UniformTaps uniform(const PilTaps& taps, int64_t in_size) {
  const int64_t out = static_cast<int64_t>(taps.first.size());
  UniformTaps u;
  for (int64_t o = 0; o < out; ++o) u.n = std::max(u.n, taps.count[o]);  // count <= in_size
  u.start.resize(out);
  u.weights.assign(out * u.n, 0);
  for (int64_t o = 0; o < out; ++o) {
    const int s = static_cast<int>(std::min<int64_t>(taps.first[o], in_size - u.n));
    u.start[o] = s;
    for (int t = 0; t < taps.count[o]; ++t)
      u.weights[o * u.n + taps.first[o] - s + t] = taps.weights[o * taps.support_len + t];
  }
  return u;
}

// Four rows share each output's weights. N > 0 is the tap count and S > 0
// the pixel stride; 0 reads them at run time.
template <int N, int S>
HAMGAN_RESAMPLE_INLINE void rows_kernel(const uint8_t* const* in, uint8_t* const* out, int64_t rows,
                                        int64_t pixel_stride, int64_t out_w, const UniformTaps& u) {
  const int n = N > 0 ? N : u.n;
  const int64_t ps = S > 0 ? S : pixel_stride;
  const int* start = u.start.data();
  const int32_t* w = u.weights.data();
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const uint8_t *p0 = in[r], *p1 = in[r + 1], *p2 = in[r + 2], *p3 = in[r + 3];
    uint8_t *o0 = out[r], *o1 = out[r + 1], *o2 = out[r + 2], *o3 = out[r + 3];
    for (int64_t x = 0; x < out_w; ++x) {
      const int64_t s = start[x] * ps;
      const int32_t* k = w + x * n;
      int32_t a0 = kHalf, a1 = kHalf, a2 = kHalf, a3 = kHalf;
      for (int t = 0; t < n; ++t) {
        const int64_t i = s + t * ps;
        a0 += int32_t(p0[i]) * k[t];
        a1 += int32_t(p1[i]) * k[t];
        a2 += int32_t(p2[i]) * k[t];
        a3 += int32_t(p3[i]) * k[t];
      }
      o0[x] = clip8(a0);
      o1[x] = clip8(a1);
      o2[x] = clip8(a2);
      o3[x] = clip8(a3);
    }
  }
  for (; r < rows; ++r) {
    for (int64_t x = 0; x < out_w; ++x) {
      const int32_t* k = w + x * n;
      int32_t a = kHalf;
      for (int t = 0; t < n; ++t) a += int32_t(in[r][(start[x] + t) * ps]) * k[t];
      out[r][x] = clip8(a);
    }
  }
}

typedef int32_t Int32x4 __attribute__((vector_size(16)));
typedef uint8_t Uint8x16 __attribute__((vector_size(16)));

// The four bytes at p as four int32 lanes (a shuffle that compilers turn into
// one or two instructions; the obvious conversions come out byte by byte).
HAMGAN_RESAMPLE_INLINE Int32x4 widen4(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  const Int32x4 word = {int32_t(v), 0, 0, 0};
  const Uint8x16 bytes = (Uint8x16)word, zero = {};
  return (Int32x4)__builtin_shufflevector(bytes, zero, 0, 16, 16, 16, 1, 16, 16, 16, 2, 16, 16, 16, 3, 16, 16, 16);
}

// Interleaved RGB, two pixel rows at a time: the three samples of a pixel
// fill three lanes of a vector (the fourth reads the next pixel's first byte
// and is dropped), so one multiply-add serves three samples.
// `in`/`out` hold the rows (y, R), (y, G), (y, B), (y + 1, R), …
template <int N>
HAMGAN_RESAMPLE_INLINE void rgb_rows_kernel(const uint8_t* const* in, uint8_t* const* out, int64_t rows, int64_t in_w,
                                            int64_t out_w, const UniformTaps& u) {
  const int n = N > 0 ? N : u.n;
  const int* start = u.start.data();
  const int32_t* w = u.weights.data();
  // Windows that reach the last pixel (a suffix: starts never decrease) have no next byte to read.
  int64_t vec_w = out_w;
  while (vec_w > 0 && start[vec_w - 1] + n >= in_w) --vec_w;
  int64_t r = 0;
  for (; r + 6 <= rows; r += 6) {
    const uint8_t *p0 = in[r], *p1 = in[r + 3];
    for (int64_t x = 0; x < vec_w; ++x) {
      const uint8_t *a = p0 + 3 * start[x], *b = p1 + 3 * start[x];
      const int32_t* k = w + x * n;
      Int32x4 acc0 = {kHalf, kHalf, kHalf, kHalf}, acc1 = acc0;
      for (int t = 0; t < n; ++t) {
        acc0 += widen4(a + 3 * t) * k[t];
        acc1 += widen4(b + 3 * t) * k[t];
      }
      for (int c = 0; c < 3; ++c) {
        out[r + c][x] = clip8(acc0[c]);
        out[r + 3 + c][x] = clip8(acc1[c]);
      }
    }
    for (int64_t x = vec_w; x < out_w; ++x)
      for (int64_t q = r; q < r + 6; ++q) {
        int32_t acc = kHalf;
        for (int t = 0; t < n; ++t) acc += int32_t(in[q][3 * (start[x] + t)]) * w[x * n + t];
        out[q][x] = clip8(acc);
      }
  }
  rows_kernel<N, 3>(in + r, out + r, rows - r, 3, out_w, u);  // a last odd pixel row
}

// True when the rows are the R, G, B samples of whole pixel rows, in that order.
bool rgb_triples(const uint8_t* const* in, int64_t rows) {
  if (rows % 3 != 0) return false;
  for (int64_t r = 0; r < rows; r += 3)
    if (in[r + 1] != in[r] + 1 || in[r + 2] != in[r] + 2) return false;
  return true;
}

struct PlanarRows {
  template <int N>
  static HAMGAN_RESAMPLE_INLINE void run(const uint8_t* const* in, uint8_t* const* out, int64_t rows, int64_t,
                                         int64_t out_w, const UniformTaps& u) {
    rows_kernel<N, 1>(in, out, rows, 1, out_w, u);
  }
};
struct RgbRows {
  template <int N>
  static HAMGAN_RESAMPLE_INLINE void run(const uint8_t* const* in, uint8_t* const* out, int64_t rows, int64_t in_w,
                                         int64_t out_w, const UniformTaps& u) {
    rgb_rows_kernel<N>(in, out, rows, in_w, out_w, u);
  }
};

// K::run<N> with N the tap count where it is one of the common ones (the
// downscales by up to 7 with BILINEAR, 3.5 with BICUBIC), else N = 0.
template <typename K>
HAMGAN_RESAMPLE_INLINE void by_taps(const uint8_t* const* in, uint8_t* const* out, int64_t rows, int64_t in_w,
                                    int64_t out_w, const UniformTaps& u) {
  switch (u.n) {
    case 3: return K::template run<3>(in, out, rows, in_w, out_w, u);
    case 4: return K::template run<4>(in, out, rows, in_w, out_w, u);
    case 5: return K::template run<5>(in, out, rows, in_w, out_w, u);
    case 6: return K::template run<6>(in, out, rows, in_w, out_w, u);
    case 7: return K::template run<7>(in, out, rows, in_w, out_w, u);
    case 8: return K::template run<8>(in, out, rows, in_w, out_w, u);
    case 9: return K::template run<9>(in, out, rows, in_w, out_w, u);
    case 10: return K::template run<10>(in, out, rows, in_w, out_w, u);
    case 11: return K::template run<11>(in, out, rows, in_w, out_w, u);
    case 12: return K::template run<12>(in, out, rows, in_w, out_w, u);
    case 13: return K::template run<13>(in, out, rows, in_w, out_w, u);
    case 14: return K::template run<14>(in, out, rows, in_w, out_w, u);
    case 15: return K::template run<15>(in, out, rows, in_w, out_w, u);
    default: return K::template run<0>(in, out, rows, in_w, out_w, u);
  }
}

HAMGAN_RESAMPLE_CLONES void rows_dispatch(const uint8_t* const* in, uint8_t* const* out, int64_t rows,
                                          int64_t pixel_stride, int64_t in_w, int64_t out_w, const UniformTaps& u) {
  if (pixel_stride == 3 && rgb_triples(in, rows)) return by_taps<RgbRows>(in, out, rows, in_w, out_w, u);
  if (pixel_stride == 1) return by_taps<PlanarRows>(in, out, rows, in_w, out_w, u);
  rows_kernel<0, 0>(in, out, rows, pixel_stride, out_w, u);
}

// One output row: acc[x] gathers the weighted input rows, row by row, so the
// inner loop runs along x and vectorises.
HAMGAN_RESAMPLE_CLONES void columns_plane(const uint8_t* in, int64_t width, const PilTaps& taps, int32_t* acc,
                                          uint8_t* out) {
  const int64_t out_h = static_cast<int64_t>(taps.first.size());
  for (int64_t y = 0; y < out_h; ++y) {
    std::fill(acc, acc + width, kHalf);
    const int* k = &taps.weights[y * taps.support_len];
    for (int t = 0; t < taps.count[y]; ++t) {
      const uint8_t* row = in + (taps.first[y] + t) * width;
      const int32_t kt = k[t];
      for (int64_t x = 0; x < width; ++x) acc[x] += int32_t(row[x]) * kt;
    }
    uint8_t* o = out + y * width;
    for (int64_t x = 0; x < width; ++x) {
      const int32_t v = acc[x] >> kPilPrecisionBits;
      o[x] = static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
}

}  // namespace

void pil_resample_rows(const std::vector<const uint8_t*>& in_rows, int64_t pixel_stride, int64_t in_w,
                       const PilTaps& taps, const std::vector<uint8_t*>& out_rows) {
  rows_dispatch(in_rows.data(), out_rows.data(), static_cast<int64_t>(in_rows.size()), pixel_stride, in_w,
                static_cast<int64_t>(taps.first.size()), uniform(taps, in_w));
}

void pil_resample_columns(const uint8_t* in, int64_t planes, int64_t in_h, int64_t width, const PilTaps& taps,
                          uint8_t* out) {
  std::vector<int32_t> acc(width);
  const int64_t out_h = static_cast<int64_t>(taps.first.size());
  for (int64_t c = 0; c < planes; ++c)
    columns_plane(in + c * in_h * width, width, taps, acc.data(), out + c * out_h * width);
}

}  // namespace hamgan
