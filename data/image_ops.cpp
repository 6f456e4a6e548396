#include "data/image_ops.h"

#include <cmath>
#include <vector>

namespace hamgan {
namespace {

// Python's round(): half to even.
int64_t round_half_even(double x) { return static_cast<int64_t>(std::nearbyint(x)); }

constexpr int kPrecisionBits = 32 - 8 - 2;  // PIL Resample.c PRECISION_BITS

struct Coeffs {
  int64_t support_len = 0;
  std::vector<int> first, count;  // per output pixel: first input pixel, taps
  std::vector<int> weights;       // out × support_len fixed-point weights
};

// PIL precompute_coeffs + normalize_coeffs_8bpc for the bilinear filter.
Coeffs precompute(int64_t in_size, int64_t out_size) {
  const double scale = double(in_size) / double(out_size);
  const double filterscale = scale < 1.0 ? 1.0 : scale;
  const double support = 1.0 * filterscale;
  Coeffs c;
  c.support_len = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  c.first.resize(out_size);
  c.count.resize(out_size);
  c.weights.assign(out_size * c.support_len, 0);
  std::vector<double> k(c.support_len);
  for (int64_t xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    const double ss = 1.0 / filterscale;
    int64_t xmin = static_cast<int64_t>(center - support + 0.5);  // C cast truncates
    if (xmin < 0) xmin = 0;
    int64_t xmax = static_cast<int64_t>(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    double ww = 0.0;
    for (int64_t x = 0; x < xmax; ++x) {
      double t = std::fabs((x + xmin - center + 0.5) * ss);
      const double w = t < 1.0 ? 1.0 - t : 0.0;
      k[x] = w;
      ww += w;
    }
    for (int64_t x = 0; x < xmax; ++x) {
      const double v = ww != 0.0 ? k[x] / ww : k[x];
      c.weights[xx * c.support_len + x] =
          static_cast<int>(v < 0 ? -0.5 + v * (1 << kPrecisionBits) : 0.5 + v * (1 << kPrecisionBits));
    }
    c.first[xx] = static_cast<int>(xmin);
    c.count[xx] = static_cast<int>(xmax);
  }
  return c;
}

inline uint8_t clip8(int64_t ss) {
  const int64_t v = ss >> kPrecisionBits;
  return v < 0 ? 0 : v > 255 ? 255 : static_cast<uint8_t>(v);
}

}  // namespace

torch::Tensor center_crop_square(const torch::Tensor& image) {
  const int64_t h = image.size(1), w = image.size(2), side = std::min(h, w);
  const int64_t top = round_half_even((h - side) / 2.0), left = round_half_even((w - side) / 2.0);
  return image.narrow(1, top, side).narrow(2, left, side).contiguous();
}

torch::Tensor resize_bilinear_pil(const torch::Tensor& image, int64_t out_h, int64_t out_w) {
  auto src = image.contiguous();
  const int64_t ch = src.size(0), in_h = src.size(1), in_w = src.size(2);
  if (in_h == out_h && in_w == out_w) return src.clone();
  // Horizontal pass (skipped when the width is unchanged, as in PIL).
  torch::Tensor mid = src;
  if (in_w != out_w) {
    const Coeffs cx = precompute(in_w, out_w);
    mid = torch::empty({ch, in_h, out_w}, torch::kUInt8);
    const uint8_t* in = src.data_ptr<uint8_t>();
    uint8_t* out = mid.data_ptr<uint8_t>();
    for (int64_t r = 0; r < ch * in_h; ++r) {
      const uint8_t* row = in + r * in_w;
      for (int64_t x = 0; x < out_w; ++x) {
        const int* k = &cx.weights[x * cx.support_len];
        int64_t ss = int64_t(1) << (kPrecisionBits - 1);
        for (int t = 0; t < cx.count[x]; ++t) ss += int64_t(row[cx.first[x] + t]) * k[t];
        out[r * out_w + x] = clip8(ss);
      }
    }
  }
  if (in_h == out_h) return mid;
  const Coeffs cy = precompute(in_h, out_h);
  auto dst = torch::empty({ch, out_h, out_w}, torch::kUInt8);
  const uint8_t* in = mid.data_ptr<uint8_t>();
  uint8_t* out = dst.data_ptr<uint8_t>();
  for (int64_t c = 0; c < ch; ++c) {
    const uint8_t* plane = in + c * in_h * out_w;
    for (int64_t y = 0; y < out_h; ++y) {
      const int* k = &cy.weights[y * cy.support_len];
      for (int64_t x = 0; x < out_w; ++x) {
        int64_t ss = int64_t(1) << (kPrecisionBits - 1);
        for (int t = 0; t < cy.count[y]; ++t) ss += int64_t(plane[(cy.first[y] + t) * out_w + x]) * k[t];
        out[(c * out_h + y) * out_w + x] = clip8(ss);
      }
    }
  }
  return dst;
}

torch::Tensor pad_to_square(const torch::Tensor& image, int64_t size, uint8_t value) {
  const int64_t c = image.size(0), h = image.size(1), w = image.size(2);
  auto canvas = torch::full({c, size, size}, static_cast<int64_t>(value), torch::kUInt8);
  // Overlap of the centred source and the canvas, per axis.
  auto place = [size](int64_t n, int64_t* src0, int64_t* dst0, int64_t* len) {
    const int64_t off = (size - n) / 2;  // >0 pads, <0 crops
    *src0 = off < 0 ? -off : 0;
    *dst0 = off > 0 ? off : 0;
    *len = std::min(n, size);
  };
  int64_t sy, dy, ly, sx, dx, lx;
  place(h, &sy, &dy, &ly);
  place(w, &sx, &dx, &lx);
  canvas.narrow(1, dy, ly).narrow(2, dx, lx).copy_(image.narrow(1, sy, ly).narrow(2, sx, lx));
  return canvas;
}

torch::Tensor convert_channels(const torch::Tensor& image, int64_t channels) {
  const int64_t c = image.size(0);
  if (c == channels) return image;
  if (c == 1 && channels == 3) return image.expand({3, image.size(1), image.size(2)}).contiguous();
  if (c == 3 && channels == 1) {
    auto i = image.to(torch::kInt32);
    auto l = (i[0] * 19595 + i[1] * 38470 + i[2] * 7471 + 0x8000) / 65536;  // PIL convert("L")
    return l.to(torch::kUInt8).unsqueeze(0);
  }
  TORCH_CHECK(false, "convert_channels: unsupported ", c, " -> ", channels);
}

}  // namespace hamgan
