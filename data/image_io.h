#pragma once
// PNG writing through libpng, used by every feature that shows images; PNG and
// JPEG (libjpeg-turbo) decoding for image-folder datasets.
#include <torch/torch.h>

#include <cstdio>
#include <string>

#include "data/image_limits.h"

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
// The PNG and JPEG decoders on an open stream (a file, or bytes in memory
// through fmemopen: data/image_bytes.h); `name` is what errors name.
torch::Tensor read_png(std::FILE* fp, const std::string& name);
torch::Tensor read_jpeg(std::FILE* fp, const std::string& name);

// [-1, 1] float to uint8 with round-half-up and clamping.
torch::Tensor to_uint8(const torch::Tensor& images);

// The grid save_png_grid writes, as uint8 (C, H', W') (torchvision make_grid
// geometry: min(nrow, N) columns, ceil(N / columns) rows).
torch::Tensor make_grid(const torch::Tensor& images, int64_t nrow = 8, int64_t padding = 2,
                        uint8_t pad_value = 0);

// Decodes a JPEG to uint8 (C, H, W), C = 1 (grayscale) or 3; throws DataError.
// PNG and JPEG headers over the limits of data/image_limits.h are refused
// before any allocation. The result views the decoder's interleaved (H, W, C)
// bytes without a copy: not contiguous; call .contiguous() before raw access.
torch::Tensor load_jpeg(const std::string& path);
// Writes a (1|3, H, W) image, uint8 or float in [-1, 1] (as save_png), as a
// baseline JPEG (atomically); quality 1..100 (ConfigError outside).
void save_jpeg(const torch::Tensor& image, const std::string& path, int quality = 95);

// PNG or JPEG, told apart by the file's first bytes, not its extension.
// Alpha is dropped, palettes expanded, 16-bit reduced to 8 bit.
torch::Tensor load_image(const std::string& path);

// True when the file starts with a PNG or JPEG signature (cheap: reads 8 bytes).
bool has_image_signature(const std::string& path);

}  // namespace hamgan
