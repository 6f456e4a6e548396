#pragma once
// The domain classifier used as an FID/KID/IS feature extractor for small
// data sets (Fashion-MNIST), so a run reports a meaningful FID without the
// Inception weights. A small VGG-style CNN for 1- or 3-channel 28×28 or 32×32
// images (any side ≥ 8 works: the last stage is a global average pool).
// Trained by `hamgan train-classifier`; `features` is the penultimate layer.
#include <torch/torch.h>

#include <string>

namespace hamgan {

struct ClassifierConfig {
  int64_t channels = 1;       // input channels (1 Fashion-MNIST, 3 RGB)
  int64_t image_size = 32;    // input side the classifier was trained at
  int64_t num_classes = 10;   // logits
  int64_t width = 32;         // channels of the first stage (×2, ×4 later)
  int64_t feature_dim = 128;  // penultimate layer = FID feature width
};

class FeatureClassifierImpl : public torch::nn::Module {
 public:
  explicit FeatureClassifierImpl(const ClassifierConfig& config = {});
  // x: float (B, channels, H, W) in [-1, 1] → logits (B, num_classes).
  torch::Tensor forward(const torch::Tensor& x);
  // Penultimate activations (after ReLU): (B, feature_dim).
  torch::Tensor features(const torch::Tensor& x);
  torch::Tensor head(const torch::Tensor& features);  // features → logits
  const ClassifierConfig& config() const { return config_; }

 private:
  ClassifierConfig config_;
  torch::nn::Sequential body{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(FeatureClassifier);

// uint8 (B, C, H, W) images of any channel count 1/3 and size → the
// classifier's input: float [-1, 1], its channels (RGB→gray by ITU-R 601 luma
// like PIL's convert('L'), gray→RGB by repetition), bilinear-resized to its size.
torch::Tensor classifier_input(const torch::Tensor& images, const ClassifierConfig& config);

// Atomic save of weights, BN statistics and the config record; load restores
// both. CheckpointError naming the path on a missing or foreign file.
void save_classifier(const std::string& path, FeatureClassifier& net);
FeatureClassifier load_classifier(const std::string& path, torch::Device device = torch::kCPU);

}  // namespace hamgan
