#include "gan/model/dblock.h"

namespace hamgan {

torch::Tensor downsample2x(const torch::Tensor& x) { return torch::avg_pool2d(x, {2, 2}, {2, 2}); }

DBlockImpl::DBlockImpl(const DBlockOptions& o) : options(o) {
  conv1 = register_module("conv1", SNConv2d(SNConv2dOptions(o.in_channels(), o.out_channels(), 3)));
  conv2 = register_module("conv2", SNConv2d(SNConv2dOptions(o.out_channels(), o.out_channels(), 3)));
  if (o.optimized() || o.downsample() || o.in_channels() != o.out_channels())
    shortcut = register_module("shortcut", SNConv2d(SNConv2dOptions(o.in_channels(), o.out_channels(), 1)));
}

torch::Tensor DBlockImpl::forward(const torch::Tensor& x) {
  const bool down = options.optimized() || options.downsample();
  auto h = options.optimized() ? x : torch::relu(x);
  h = torch::relu(conv1->forward(h));
  if (down && resample == ResampleConv::kFolded)
    h = conv2->forward_pooled(h);
  else
    h = down ? downsample2x(conv2->forward(h)) : conv2->forward(h);
  // 1×1 conv and 2×2 average pooling are both linear and commute (bias
  // included), so pooling first matches conv→pool of the plain block exactly
  // and the optimized block's pool→conv as written, at a quarter of the cost.
  auto s = down ? downsample2x(x) : x;
  if (shortcut) s = shortcut->forward(s);
  return h + s;
}

}  // namespace hamgan
