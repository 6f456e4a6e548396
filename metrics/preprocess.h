#pragma once
// Inception input preprocessing in the three camps' exact forms
// (docs/metrics.md, "Preprocessing modes"; names as clean-fid and StudioGAN use them):
//   legacy_tensorflow  TF1 bilinear resize (sample point j·in/out, no half-pixel
//                      shift, edge clamped) then (x−128)/128: TTUR, TF-GAN,
//                      torch-fidelity and NVIDIA's TorchScript (whose affine_grid
//                      offset 1/W−1/299 reduces to exactly this sampling).
//   legacy_pytorch     x/255, F.interpolate bilinear align_corners=False, 2x−1: pytorch-fid.
//   clean              PIL bicubic (a = −0.5, antialiased when shrinking) per
//                      channel in float mode, clipped to [0, 255], not
//                      re-quantised, then (x−128)/128: clean-fid's default.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/enum_names.h"

namespace hamgan {

enum class ResizeMode { legacy_tensorflow, legacy_pytorch, clean };

// The option `resize` takes these names.
const EnumNames<ResizeMode>& resize_mode_table();
std::vector<std::string> resize_mode_names();
ResizeMode parse_resize_mode(const std::string& name);  // ConfigError listing the names
std::string to_string(ResizeMode mode);

// images: uint8 or float 0..255, (B, 1 or 3, H, W) on any device; grayscale is
// repeated to 3 channels. Returns float32 (B, 3, size, size) normalised for Inception.
torch::Tensor preprocess_for_inception(const torch::Tensor& images, ResizeMode mode, int64_t size = 299);

// Resampling matrices R (out, in) with out = R · x along one axis, in float64.
torch::Tensor tf1_bilinear_matrix(int64_t in, int64_t out);
torch::Tensor pil_bicubic_matrix(int64_t in, int64_t out);

}  // namespace hamgan
