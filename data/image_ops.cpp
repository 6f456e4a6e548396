#include "data/image_ops.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "data/pil_resample.h"

namespace hamgan {
namespace {

// Python's round(): half to even.
int64_t round_half_even(double x) { return static_cast<int64_t>(std::nearbyint(x)); }

constexpr int kPrecisionBits = kPilPrecisionBits;

using Coeffs = PilTaps;  // per output pixel: first input pixel, taps, fixed-point weights

// PIL's filters (Resample.c): the kernel and its support at scale 1. BOX is
// deliberately asymmetric, (-0.5, 0.5], so it is evaluated on the signed offset.
double box_filter(double x) { return x > -0.5 && x <= 0.5 ? 1.0 : 0.0; }
double bilinear_filter(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}
double bicubic_filter(double x) {  // cubic convolution with a = -0.5
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}

struct Filter {
  double (*kernel)(double);
  double support;
};

Filter filter_of(PilFilter f) {
  switch (f) {
    case PilFilter::kBox: return {box_filter, 0.5};
    case PilFilter::kBilinear: return {bilinear_filter, 1.0};
    case PilFilter::kBicubic: return {bicubic_filter, 2.0};
  }
  return {bilinear_filter, 1.0};
}

// PIL precompute_coeffs + normalize_coeffs_8bpc.
Coeffs precompute(int64_t in_size, int64_t out_size, const Filter& filter) {
  const double scale = double(in_size) / double(out_size);
  const double filterscale = scale < 1.0 ? 1.0 : scale;
  const double support = filter.support * filterscale;
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
      const double w = filter.kernel((x + xmin - center + 0.5) * ss);
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

}  // namespace

torch::Tensor center_crop_square(const torch::Tensor& image) {
  const int64_t h = image.size(1), w = image.size(2), side = std::min(h, w);
  const int64_t top = round_half_even((h - side) / 2.0), left = round_half_even((w - side) / 2.0);
  return image.narrow(1, top, side).narrow(2, left, side);  // a view: the resize reads it in place
}

torch::Tensor resize_bilinear_pil(const torch::Tensor& image, int64_t out_h, int64_t out_w) {
  return resize_pil(image, out_h, out_w, PilFilter::kBilinear);
}

namespace {

// PIL's 8-bit horizontal pass: every row of every channel to out_w samples.
torch::Tensor horizontal_pass(const torch::Tensor& src, int64_t out_w, const Filter& f) {
  const int64_t ch = src.size(0), h = src.size(1), in_w = src.size(2);
  auto dst = torch::empty({ch, h, out_w}, torch::kUInt8);
  // Any strides, so a crop of interleaved pixels (as libjpeg decodes them) is
  // read in place, never copied: it comes out planar. The channels of one
  // pixel row are then taken together, for locality.
  const uint8_t* in = src.data_ptr<uint8_t>();
  uint8_t* out = dst.data_ptr<uint8_t>();
  const bool interleaved = src.stride(0) < src.stride(1);
  std::vector<const uint8_t*> in_rows;
  std::vector<uint8_t*> out_rows;
  for (int64_t i = 0; i < ch * h; ++i) {
    const int64_t c = interleaved ? i % ch : i / h, y = interleaved ? i / ch : i % h;
    in_rows.push_back(in + c * src.stride(0) + y * src.stride(1));
    out_rows.push_back(out + (c * h + y) * out_w);
  }
  pil_resample_rows(in_rows, src.stride(2), in_w, precompute(in_w, out_w, f), out_rows);
  return dst;
}

// PIL's 8-bit vertical pass: every column of every channel to out_h samples.
torch::Tensor vertical_pass(const torch::Tensor& src, int64_t out_h, const Filter& f) {
  const int64_t ch = src.size(0), in_h = src.size(1), w = src.size(2);
  const auto planar = src.contiguous();
  auto dst = torch::empty({ch, out_h, w}, torch::kUInt8);
  pil_resample_columns(planar.data_ptr<uint8_t>(), ch, in_h, w, precompute(in_h, out_h, f), dst.data_ptr<uint8_t>());
  return dst;
}

}  // namespace

torch::Tensor resize_pil(const torch::Tensor& image, int64_t out_h, int64_t out_w, PilFilter filter) {
  const Filter f = filter_of(filter);
  auto img = image;  // any strides (horizontal_pass)
  const int64_t in_h = img.size(1), in_w = img.size(2);
  if (in_h == out_h && in_w == out_w) return img.is_contiguous() ? img.clone() : img.contiguous();
  // The order changes the rounding between passes. Pillow 13 runs the vertical
  // pass first when the height shrinks by more than twice as many pixels as
  // the width does (never for a square resized to a square). A pass whose size
  // is unchanged is skipped, as in Pillow.
  const bool vertical_first = out_h < in_h && 2 * (in_w - out_w) < in_h - out_h;
  if (vertical_first) {
    img = vertical_pass(img, out_h, f);
    return in_w == out_w ? img : horizontal_pass(img, out_w, f);
  }
  if (in_w != out_w) img = horizontal_pass(img, out_w, f);
  return in_h == out_h ? img : vertical_pass(img, out_h, f);
}

torch::Tensor center_crop_dhariwal(const torch::Tensor& image, int64_t size) {
  auto img = image;
  // Halve with BOX while the short side stays at least twice the target: cheap
  // antialiasing before the one BICUBIC step.
  while (std::min(img.size(1), img.size(2)) >= 2 * size)
    img = resize_pil(img, img.size(1) / 2, img.size(2) / 2, PilFilter::kBox);
  const double scale = double(size) / double(std::min(img.size(1), img.size(2)));
  img = resize_pil(img, round_half_even(double(img.size(1)) * scale), round_half_even(double(img.size(2)) * scale),
                   PilFilter::kBicubic);
  const int64_t top = (img.size(1) - size) / 2, left = (img.size(2) - size) / 2;
  return img.narrow(1, top, size).narrow(2, left, size).contiguous();
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
