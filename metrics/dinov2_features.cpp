// FD_DINOv2's feature extractor (see dinov2_features.h): HamGAN's ViT on safetensors weights, or a
// TorchScript module (legacy).
#include "metrics/dinov2_features.h"

#include <torch/script.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <sstream>

#include "core/errors.h"
#include "core/text.h"
#include "metrics/dinov2_vit.h"

namespace hamgan {
namespace {

const std::string kConvert = "write it with scripts/convert_dinov2.py (FILE.safetensors)";

std::string shape_text(const torch::Tensor& t) {
  std::ostringstream s;
  s << t.sizes();
  return s.str();
}

using Network = std::function<torch::Tensor(const torch::Tensor&)>;

// The legacy form: a traced module (TorchScript, which PyTorch has deprecated).
Network load_torchscript(const std::string& path, torch::Device device) {
  torch::jit::Module module;
  try {
    module = torch::jit::load(path, device);
  } catch (const c10::Error&) {
    throw CheckpointError(path + ": not a TorchScript archive (--features dinov2:PATH); " + kConvert);
  }
  module.eval();
  return [module, path](const torch::Tensor& x) mutable {
    const torch::IValue out = module.forward({x});
    if (!out.isTensor())
      throw CheckpointError(path + ": maps images to a non-tensor, not (N, D) CLS embeddings; " + kConvert);
    return out.toTensor();
  };
}

Network load_vit(const std::string& path, torch::Device device) {
  auto vit = std::make_shared<const Dinov2Vit>(path, device);
  return [vit](const torch::Tensor& x) { return vit->forward(x); };
}

class Dinov2Features : public FeatureExtractor {
 public:
  Dinov2Features(const std::string& path, DinoResize mode, torch::Device device)
      : path_(path), mode_(mode), device_(device) {
    const bool safetensors = ends_with(path, ".safetensors");
    if (!std::filesystem::is_regular_file(path))
      throw CheckpointError(path + ": DINOv2 " + (safetensors ? "safetensors" : "TorchScript") +
                            " file not found; " + kConvert);
    net_ = safetensors ? load_vit(path, device) : load_torchscript(path, device);
    // One probe image fixes D and catches a module that is not a CLS-embedding network
    // (e.g. one still carrying a classifier head or returning patch tokens).
    torch::NoGradGuard g;
    torch::Tensor out;
    try {
      out = net_(torch::zeros({1, 3, 224, 224}, torch::TensorOptions().device(device)));
    } catch (const CheckpointError&) {
      throw;
    } catch (const std::exception&) {
      throw CheckpointError(path + ": forward on a (1, 3, 224, 224) float32 image fails; " + kConvert);
    }
    if (out.dim() != 2 || out.size(0) != 1)
      throw CheckpointError(path + ": maps a (1, 3, 224, 224) image to " + shape_text(out) +
                            ", not (1, D) CLS embeddings; " + kConvert);
    dim_ = out.size(1);
    if (dim_ > kDinov2MaxFeatureDim)
      throw CheckpointError(path + ": gives " + std::to_string(dim_) + "-d features, more than the " +
                            std::to_string(kDinov2MaxFeatureDim) + " a DINOv2 embedding has (ViT-g: 1536); it is no CLS-"
                            "embedding network (a classifier head?): " + kConvert);
    if (!torch::isfinite(out).all().item<bool>())
      throw CheckpointError(path + ": gives NaN or Inf features for a (1, 3, 224, 224) image; its weights are "
                            "damaged: " + kConvert);
    desc_ = std::string("DINOv2 (") + (safetensors ? "ViT weights " : "TorchScript, legacy, ") + path +
            ", " + std::to_string(dim_) + "-d CLS features), resize " + to_string(mode_);
  }

  FeatureBatch compute(const torch::Tensor& images) override {  // called through extract() (features.h)
    torch::NoGradGuard g;
    auto x = preprocess_for_dinov2(images.to(device_), mode_);
    auto f = net_(x);
    if (f.dim() != 2 || f.size(0) != x.size(0) || f.size(1) != dim_)
      throw DataError(path_ + ": the DINOv2 module returned " + shape_text(f) + " for " + std::to_string(x.size(0)) +
                      " images; expected (N, " + std::to_string(dim_) + ")");
    // A NaN feature would surface as "statistics contain NaN" and blame the statistics, not this file.
    if (!torch::isfinite(f).all().item<bool>())
      throw DataError(path_ + ": the DINOv2 module gave NaN or Inf features for a batch of " +
                      std::to_string(x.size(0)) + " images; its weights are damaged: " + kConvert);
    return {f.to(torch::kFloat32), torch::Tensor(), torch::Tensor()};
  }
  int64_t dim() const override { return dim_; }
  std::string describe() const override { return desc_; }
  torch::Device device() const override { return device_; }

 private:
  std::string path_;
  Network net_;
  DinoResize mode_;
  torch::Device device_;
  int64_t dim_ = 0;
  std::string desc_;
};

}  // namespace

std::unique_ptr<FeatureExtractor> make_dinov2_extractor(const std::string& path, DinoResize mode,
                                                        torch::Device device) {
  return std::make_unique<Dinov2Features>(path, mode, device);
}

}  // namespace hamgan
