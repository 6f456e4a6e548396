#pragma once
// The FID Inception-v3 (the TF "inception-2015-12-05" graph as ported by
// pytorch-fid; docs/metrics.md, "Sources"): torchvision's Inception3 layout with
// 1008 classes and no aux head, where Mixed_5b–5d, 6b–6e and 7b average-pool
// their pool branch with count_include_pad=false (TF semantics) and Mixed_7c
// max-pools it (a quirk of the TF graph). Submodule and parameter names equal
// pytorch-fid's state dict (`Mixed_6b.branch7x7_2.conv.weight`, `fc.bias`, ...)
// so `pt_inception-2015-12-05-6726825d.pth` loads by name.
#include <torch/torch.h>

#include <optional>
#include <string>

#include "metrics/sfid_layer.h"

namespace hamgan {

class BasicConv2dImpl : public torch::nn::Module {  // conv (no bias) → BN(eps 1e-3) → ReLU
 public:
  BasicConv2dImpl(int64_t in, int64_t out, torch::ExpandingArray<2> kernel, torch::ExpandingArray<2> stride = 1,
                  torch::ExpandingArray<2> padding = 0);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
};
TORCH_MODULE(BasicConv2d);

struct InceptionOutput {
  torch::Tensor pool;     // (B, 2048) pool_3 features
  torch::Tensor logits;   // (B, 1008) fc output, with bias
  torch::Tensor spatial;  // (B, 2023) sFID features when asked: channels 0..6 of the 17×17
                          // map, flattened in ADM's (h, w, c) order (its NHWC `[..., :7]`)
};

class FidInceptionV3Impl : public torch::nn::Module {
 public:
  FidInceptionV3Impl();
  // x: (B, 3, 299, 299) float, already resized and normalised to [-1, 1].
  // sfid: also fill `spatial` from that layer (sfid_layer.h); costs one 1×1 conv for adm.
  InceptionOutput forward(const torch::Tensor& x, std::optional<SfidLayer> sfid = std::nullopt);
  torch::Tensor fc_weight() const;  // (1008, 2048), for bias-free IS logits
};
TORCH_MODULE(FidInceptionV3);

// Loads pytorch-fid's state dict (a torch.save zip file) by name; CheckpointError
// with the fix when the file is missing, is PyTorch's legacy (pre-1.6) format
// (convert once with scripts/convert_inception.py), or does not match.
void load_pytorch_fid_weights(FidInceptionV3& net, const std::string& path);

}  // namespace hamgan
