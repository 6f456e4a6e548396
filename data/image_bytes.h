#pragma once
// Images held in memory rather than in files: ZIP archive members.
#include <torch/torch.h>

#include <cstddef>
#include <string>

namespace hamgan {

// Decodes PNG or JPEG bytes (told apart by their signature) to uint8 (C, H, W)
// as load_image does; `name` (archive:member) is what errors name.
torch::Tensor decode_image_bytes(const void* data, size_t size, const std::string& name);

// The PNG file of a (1|3, H, W) uint8 image (gray or RGB, 8 bit) at zlib
// `level` 0–9; level 0 stores the rows uncompressed and unfiltered, as
// StyleGAN's and EDM's dataset_tool.py write their PNGs.
std::string encode_png_bytes(const torch::Tensor& image, int level);

}  // namespace hamgan
