#pragma once
// FD_DINOv2's feature extractor (Stein et al., NeurIPS 2023; EDM2's tables): the
// ViT's weights as safetensors (FILE.safetensors, run by metrics/dinov2_vit.h) or,
// legacy, a TorchScript module (FILE.pt); scripts/convert_dinov2.py writes both from
// timm's ViT-L/14 (or the hub's, TorchScript only). Either maps float32
// (N, 3, 224, 224) images normalised with ImageNet's mean and std to (N, D) CLS
// embeddings.
#include <torch/torch.h>

#include <memory>
#include <string>

#include "metrics/dinov2_preprocess.h"
#include "metrics/feature_extractor.h"

namespace hamgan {

// CheckpointError naming `path` and the fix when it is missing, not a DINOv2 safetensors file
// (metrics/dinov2_vit.h) or TorchScript,
// or does not map a (1, 3, 224, 224) input to a finite (1, D) output with
// D <= 16384. Non-finite features of a later batch: DataError naming `path`. No logits.
std::unique_ptr<FeatureExtractor> make_dinov2_extractor(const std::string& path, DinoResize mode, torch::Device device);

}  // namespace hamgan
