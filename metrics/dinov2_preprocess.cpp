// DINOv2 preprocessing (see dinov2_preprocess.h).
#include "metrics/dinov2_preprocess.h"

#include "core/errors.h"
#include "data/image_ops.h"
#include "metrics/preprocess.h"

namespace hamgan {

const EnumNames<DinoResize>& dino_resize_table() {
  static const EnumNames<DinoResize> names("dinov2_resize", {{DinoResize::pil_bicubic, "pil_bicubic"},
                                                             {DinoResize::torch_bicubic, "torch_bicubic"},
                                                             {DinoResize::legacy_tensorflow, "legacy_tensorflow"}});
  return names;
}

std::string to_string(DinoResize mode) { return dino_resize_table().name(mode); }

namespace {

// x/255, then (x − mean)/std, in EDM2's and torchvision's order of operations.
torch::Tensor imagenet_normalise(const torch::Tensor& x) {
  auto opts = x.options();
  auto mean = torch::tensor({0.485f, 0.456f, 0.406f}, opts).reshape({1, 3, 1, 1});
  auto std = torch::tensor({0.229f, 0.224f, 0.225f}, opts).reshape({1, 3, 1, 1});
  return (x / 255.0f - mean) / std;
}

// Pillow's 8-bit BICUBIC resize of each image, as EDM2's `pil` mode and dgm-eval
// run it on uint8 RGB images; the result is uint8 again.
torch::Tensor pil_resize_batch(const torch::Tensor& images, int64_t size) {
  auto x = images;
  // EDM2 casts with x.to(torch.uint8), which truncates floats.
  if (x.is_floating_point()) x = x.clamp(0, 255).to(torch::kUInt8);
  x = x.to(torch::kCPU).contiguous();
  std::vector<torch::Tensor> out;
  out.reserve(x.size(0));
  for (int64_t i = 0; i < x.size(0); ++i) out.push_back(resize_pil(x[i], size, size, PilFilter::kBicubic));
  return torch::stack(out);
}

}  // namespace

torch::Tensor preprocess_for_dinov2(const torch::Tensor& images, DinoResize mode, int64_t size) {
  TORCH_CHECK(images.dim() == 4, "preprocess_for_dinov2 expects (B, C, H, W)");
  auto x = images;
  if (x.size(1) == 1) x = x.expand({-1, 3, -1, -1});  // dgm-eval's convert('RGB') replicates L
  if (x.size(1) != 3)
    throw DataError("fid: images have " + std::to_string(x.size(1)) + " channels; DINOv2 needs 1 or 3");
  const auto device = x.device();
  const int64_t h = x.size(2), w = x.size(3);
  switch (mode) {
    case DinoResize::pil_bicubic:
      return imagenet_normalise(pil_resize_batch(x, size).to(device).to(torch::kFloat32));
    case DinoResize::torch_bicubic: {
      // EDM2 interpolates unconditionally; at the same size bicubic is the identity.
      auto f = torch::nn::functional::interpolate(x.to(torch::kFloat32),
                                                  torch::nn::functional::InterpolateFuncOptions()
                                                      .size(std::vector<int64_t>{size, size})
                                                      .mode(torch::kBicubic)
                                                      .align_corners(false)
                                                      .antialias(true));
      return imagenet_normalise(f);
    }
    case DinoResize::legacy_tensorflow: {
      auto f = x.to(torch::kFloat32);
      if (h != size || w != size) {
        auto opts = f.options();
        auto Rh = tf1_bilinear_matrix(h, size).to(opts), Rw = tf1_bilinear_matrix(w, size).to(opts);
        f = torch::matmul(torch::matmul(Rh, f), Rw.t());
      }
      // torch-fidelity normalises on 0..255 with mean and std scaled by 255.
      // (255·mean in double, then rounded to float32, as torchvision's normalize does).
      auto opts = f.options();
      auto mean = torch::tensor({255 * 0.485, 255 * 0.456, 255 * 0.406}, torch::kFloat64).to(opts).reshape({1, 3, 1, 1});
      auto std = torch::tensor({255 * 0.229, 255 * 0.224, 255 * 0.225}, torch::kFloat64).to(opts).reshape({1, 3, 1, 1});
      return (f - mean) / std;
    }
  }
  throw ConfigError("unknown dinov2_resize mode");
}

}  // namespace hamgan
