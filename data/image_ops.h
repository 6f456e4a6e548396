#pragma once
// Pixel operations on uint8 (C, H, W) images used when preparing datasets.
#include <torch/torch.h>

namespace hamgan {

// The centred square of side min(H, W), offsets as torchvision's center_crop
// (round((H − side) / 2), Python rounding: half to even), as BigGAN-PyTorch's
// CenterCropLongEdge does (docs/data.md, "Sources").
torch::Tensor center_crop_square(const torch::Tensor& image);

// PIL's resampling filters (Pillow's src/libImaging/Resample.c): BOX (support
// 0.5), BILINEAR (triangle, support 1), BICUBIC (cubic convolution a = -0.5,
// support 2).
enum class PilFilter { kBox, kBilinear, kBicubic };

// PIL's Image.resize(size, filter) re-implemented exactly (Pillow 13) for
// uint8 L and RGB images: the kernel widened by the downscale factor (so it
// antialiases), normalised per output pixel, 22-bit fixed-point weights, two
// separable passes with a uint8 clip between them (horizontal first unless
// the height shrinks by more than twice as many pixels as the width), a pass
// skipped when its side is unchanged. Channels are independent, as in PIL.
torch::Tensor resize_pil(const torch::Tensor& image, int64_t out_h, int64_t out_w, PilFilter filter);

// resize_pil with BILINEAR: what torchvision's Resize does to PIL images in
// BigGAN-PyTorch.
torch::Tensor resize_bilinear_pil(const torch::Tensor& image, int64_t out_h, int64_t out_w);

// ADM's center_crop_arr (openai/guided-diffusion, image_datasets.py), the
// `center-crop-dhariwal` of EDM2's dataset_tool.py: halve with BOX while the
// short side is at least 2·size, BICUBIC-resize the short side to `size`
// (long side round(L·scale), Python rounding), then crop size×size at offsets
// ((H' − size) // 2, (W' − size) // 2).
torch::Tensor center_crop_dhariwal(const torch::Tensor& image, int64_t size);

// Centres the image on a size×size canvas of `value` (cropping centrally if
// it is larger).
torch::Tensor pad_to_square(const torch::Tensor& image, int64_t size, uint8_t value = 0);

// 1 → 3 channels replicates; 3 → 1 uses PIL's convert("L") luma
// (R·19595 + G·38470 + B·7471 + 2^15) >> 16, i.e. ITU-R 601-2 weights, rounded.
torch::Tensor convert_channels(const torch::Tensor& image, int64_t channels);

}  // namespace hamgan
