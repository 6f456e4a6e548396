#pragma once
// Pixel operations on uint8 (C, H, W) images used when preparing datasets.
#include <torch/torch.h>

namespace hamgan {

// The centred square of side min(H, W), offsets as torchvision's center_crop
// (round((H − side) / 2), Python rounding: half to even), as BigGAN-PyTorch's
// CenterCropLongEdge does (docs/data.md, "Sources").
torch::Tensor center_crop_square(const torch::Tensor& image);

// PIL's Image.resize(BILINEAR) re-implemented exactly: a triangle filter
// widened by the downscale factor (so it antialiases), horizontal pass then
// vertical pass, 22-bit fixed-point weights and a uint8 round between passes.
// This is what torchvision's Resize does to PIL images in BigGAN-PyTorch.
torch::Tensor resize_bilinear_pil(const torch::Tensor& image, int64_t out_h, int64_t out_w);

// Centres the image on a size×size canvas of `value` (cropping centrally if
// it is larger).
torch::Tensor pad_to_square(const torch::Tensor& image, int64_t size, uint8_t value = 0);

// 1 → 3 channels replicates; 3 → 1 uses PIL's convert("L") luma
// (R·19595 + G·38470 + B·7471 + 2^15) >> 16, i.e. ITU-R 601-2 weights, rounded.
torch::Tensor convert_channels(const torch::Tensor& image, int64_t channels);

}  // namespace hamgan
