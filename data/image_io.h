#pragma once
// PNG writing through libpng, used by every feature that shows images.
#include <torch/torch.h>

#include <string>

namespace hamgan {

// images: (N, C, H, W) with C = 1 or 3, either uint8 or float in [-1, 1]
// (mapped to uint8 with rounding). Lays them out `nrow` per row with
// `padding` pixels of `pad_value` between and around them, written atomically.
void save_png_grid(const torch::Tensor& images, const std::string& path, int64_t nrow = 8,
                   int64_t padding = 2, uint8_t pad_value = 0);
// One image (C, H, W).
void save_png(const torch::Tensor& image, const std::string& path);
// Decodes a PNG to uint8 (C, H, W); throws DataError on a bad file.
torch::Tensor load_png(const std::string& path);

// [-1, 1] float to uint8 with round-half-up and clamping.
torch::Tensor to_uint8(const torch::Tensor& images);

}  // namespace hamgan
