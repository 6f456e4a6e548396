#pragma once
// Feature extractors for FID/KID/IS: the FID Inception (our network on
// pytorch-fid's weights, or NVIDIA's TorchScript file) and the domain
// classifier. All take uint8 (B, C, H, W) images and return float32 features
// plus the logits the Inception Score needs.
#include <torch/torch.h>

#include <memory>
#include <string>

#include "metrics/classifier.h"
#include "metrics/dinov2_preprocess.h"
#include "metrics/feature_extractor.h"
#include "metrics/preprocess.h"
#include "metrics/sfid_layer.h"

namespace hamgan {

struct FeatureOptions {
  std::string spec = "inception";  // inception | inception:PATH | classifier:PATH | dinov2:PATH
  std::string inception;           // weights when spec is plain "inception" (else $HAMGAN_INCEPTION)
  ResizeMode resize = ResizeMode::legacy_tensorflow;  // Inception preprocessing
  DinoResize dinov2_resize = DinoResize::torch_bicubic;  // DINOv2 preprocessing
  bool sfid = false;               // Inception: also the spatial features of sFID
  SfidLayer sfid_layer = SfidLayer::adm;
  std::string device = "auto";     // auto | cpu | cuda
  bool allow_random = false;       // benchmarks: random Inception weights when none are given
};

// Resolves the spec; without Inception weights throws ConfigError with the one
// line that says which file to download and where to put it.
std::unique_ptr<FeatureExtractor> make_feature_extractor(const FeatureOptions& options);

// Wraps an in-memory classifier (e.g. during training) as a feature extractor.
std::unique_ptr<FeatureExtractor> make_classifier_features(const FeatureClassifier& net, torch::Device device,
                                                           std::string description);

// Where the Inception weights come from: explicit path, else $HAMGAN_INCEPTION, else "".
std::string resolve_inception_path(const FeatureOptions& options);

}  // namespace hamgan
