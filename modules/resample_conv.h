#pragma once
// Resampling folded into the convolution (docs/modules.md, "Resampling folded into the
// convolution"): nearest ×2 upsampling followed by a 3×3 convolution is one 4×4
// transposed convolution with stride 2, and a 3×3 convolution followed by 2×2
// average pooling is one 4×4 convolution with stride 2, each kernel a fixed linear
// map of the 3×3 one. Both are exact (the same sums, in another order), skip the
// resampling pass, and cost 16 instead of 36 multiply-adds per input position of
// each channel pair. The parameters stay 3×3, so a checkpoint runs either way
// (StyleGAN2's conv2d_resample folds its FIR filters the same way).
#include <torch/torch.h>

#include "core/enum_names.h"

namespace hamgan {

// The model key `resample_conv`: separate passes (as written in the papers) or folded.
enum class ResampleConv { kSeparate, kFolded };
const EnumNames<ResampleConv>& resample_conv_names();  // separate, folded

// The (I, O, 4, 4) kernel K of conv_transpose2d(x, K, stride 2, padding 1) that equals
// conv2d(upsample_nearest_2x(x), w, padding 1) for w (O, I, 3, 3).
torch::Tensor upsampling_kernel(const torch::Tensor& w);
// The (O, I, 4, 4) kernel K of conv2d(x, K, stride 2, padding 1) that equals
// avg_pool2d(conv2d(x, w, padding 1), 2) for w (O, I, 3, 3) and even H, W.
torch::Tensor pooling_kernel(const torch::Tensor& w);

// The two products themselves, bias (O) optional: the results of the separate passes.
torch::Tensor upsample_conv3x3(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& bias);
torch::Tensor conv3x3_avgpool(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& bias);

}  // namespace hamgan
