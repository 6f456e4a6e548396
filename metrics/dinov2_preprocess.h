#pragma once
// DINOv2 input preprocessing in the three forms the FD_DINOv2 tools use
// (docs/metrics.md, "FD_DINOv2"), each resizing to 224×224 and normalising with
// ImageNet's mean (0.485, 0.456, 0.406) and std (0.229, 0.224, 0.225) on x/255:
//   pil_bicubic        Pillow's 8-bit BICUBIC resize (integer arithmetic, each
//                      pass rounded to uint8): dgm-eval, and EDM2's `pil` mode.
//   torch_bicubic      torch bicubic interpolation with antialiasing on float
//                      0..255, not clamped: EDM2's `torch` mode (its default).
//   legacy_tensorflow  TF1 bilinear resize (no half-pixel shift): torch-fidelity.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/enum_names.h"

namespace hamgan {

enum class DinoResize { pil_bicubic, torch_bicubic, legacy_tensorflow };

const EnumNames<DinoResize>& dino_resize_table();
std::string to_string(DinoResize mode);

// images: uint8 or float 0..255, (B, 1 or 3, H, W) on any device; grayscale is
// repeated to 3 channels. Returns float32 (B, 3, size, size) on the same device.
torch::Tensor preprocess_for_dinov2(const torch::Tensor& images, DinoResize mode, int64_t size = 224);

}  // namespace hamgan
