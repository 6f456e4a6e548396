// Inception preprocessing (see preprocess.h).
#include "metrics/preprocess.h"

#include <cmath>

#include "core/errors.h"

namespace hamgan {

const EnumNames<ResizeMode>& resize_mode_table() {
  static const EnumNames<ResizeMode> names("resize", {{ResizeMode::legacy_tensorflow, "legacy_tensorflow"},
                                                      {ResizeMode::legacy_pytorch, "legacy_pytorch"},
                                                      {ResizeMode::clean, "clean"}});
  return names;
}

std::vector<std::string> resize_mode_names() { return resize_mode_table().names(); }

ResizeMode parse_resize_mode(const std::string& name) { return resize_mode_table().parse(name); }

std::string to_string(ResizeMode mode) { return resize_mode_table().name(mode); }

torch::Tensor tf1_bilinear_matrix(int64_t in, int64_t out) {
  // TF1 resize_bilinear (align_corners=False, half_pixel_centers=False):
  // source position y = j·(in/out) computed in float32 as TF does (the last
  // bits of y move a pixel value by up to ~0.01 when shrinking), neighbours
  // ⌊y⌋ and min(⌊y⌋+1, in−1).
  auto R = torch::zeros({out, in}, torch::kFloat64);
  auto a = R.accessor<double, 2>();
  const float scale = float(in) / float(out);
  for (int64_t j = 0; j < out; ++j) {
    float y = float(j) * scale;
    int64_t y0 = std::min<int64_t>(int64_t(std::floor(y)), in - 1);
    int64_t y1 = std::min<int64_t>(y0 + 1, in - 1);
    double f = double(y - float(y0));
    a[j][y0] += 1.0 - f;
    a[j][y1] += f;
  }
  return R;
}

torch::Tensor pil_bicubic_matrix(int64_t in, int64_t out) {
  // Pillow's Resample.c precompute_coeffs with the bicubic filter (a = −0.5,
  // support 2), support widened by the scale when shrinking; weights normalised.
  auto cubic = [](double x) {
    const double a = -0.5;
    x = std::fabs(x);
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
    if (x < 2.0) return (((x - 5.0) * x + 8.0) * x - 4.0) * a;
    return 0.0;
  };
  auto R = torch::zeros({out, in}, torch::kFloat64);
  auto acc = R.accessor<double, 2>();
  const double scale = double(in) / double(out);
  const double filterscale = std::max(scale, 1.0);
  const double support = 2.0 * filterscale;
  for (int64_t xx = 0; xx < out; ++xx) {
    double center = (xx + 0.5) * scale;
    double ss = 1.0 / filterscale;
    int64_t xmin = std::max<int64_t>(0, int64_t(center - support + 0.5));  // C cast truncates
    int64_t xmax = std::min<int64_t>(in, int64_t(center + support + 0.5));
    double ww = 0.0;
    std::vector<double> k;
    for (int64_t x = xmin; x < xmax; ++x) {
      k.push_back(cubic((x - center + 0.5) * ss));
      ww += k.back();
    }
    for (int64_t x = xmin; x < xmax; ++x) acc[xx][x] = ww != 0.0 ? k[x - xmin] / ww : k[x - xmin];
  }
  return R;
}

torch::Tensor preprocess_for_inception(const torch::Tensor& images, ResizeMode mode, int64_t size) {
  TORCH_CHECK(images.dim() == 4, "preprocess_for_inception expects (B, C, H, W)");
  auto x = images;
  if (x.size(1) == 1) x = x.expand({-1, 3, -1, -1});
  if (x.size(1) != 3) throw DataError("fid: images have " + std::to_string(x.size(1)) + " channels; Inception needs 1 or 3");
  const int64_t h = x.size(2), w = x.size(3);
  switch (mode) {
    case ResizeMode::legacy_pytorch: {
      auto f = x.to(torch::kFloat32) / 255.0f;  // ToTensor
      if (h != size || w != size)
        f = torch::nn::functional::interpolate(
            f, torch::nn::functional::InterpolateFuncOptions()
                   .size(std::vector<int64_t>{size, size})
                   .mode(torch::kBilinear)
                   .align_corners(false));
      return 2 * f - 1;
    }
    case ResizeMode::legacy_tensorflow: {
      auto f = x.to(torch::kFloat32);
      if (h != size || w != size) {
        auto opts = f.options();
        auto Rh = tf1_bilinear_matrix(h, size).to(opts), Rw = tf1_bilinear_matrix(w, size).to(opts);
        f = torch::matmul(torch::matmul(Rh, f), Rw.t());  // (B,3,H,W) → (B,3,size,size)
      }
      return (f - 128.0f) / 128.0f;
    }
    case ResizeMode::clean: {
      auto f = x.to(torch::kFloat64);
      // Pillow runs the horizontal pass first and stores it as float32, then the vertical pass.
      if (w != size) f = torch::matmul(f, pil_bicubic_matrix(w, size).to(f.device()).t()).to(torch::kFloat32).to(torch::kFloat64);
      if (h != size) f = torch::matmul(pil_bicubic_matrix(h, size).to(f.device()), f);
      f = f.to(torch::kFloat32).clamp(0.0, 255.0);
      return (f - 128.0f) / 128.0f;
    }
  }
  throw ConfigError("unknown resize mode");
}

}  // namespace hamgan
