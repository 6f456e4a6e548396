// FD_DINOv2's TorchScript feature extractor (see dinov2_features.h).
#include "metrics/dinov2_features.h"

#include <torch/script.h>

#include <filesystem>
#include <sstream>

#include "core/errors.h"

namespace hamgan {
namespace {

const std::string kConvert = "write it with scripts/convert_dinov2.py";
// DINOv2's widest model (ViT-g) gives 1536-d features; the statistics hold a D×D float64 covariance, so
// a module that is no embedding network (say, one returning 200,000 logits) must stop here, not at 320 GB.
constexpr int64_t kMaxFeatureDim = 16384;

std::string shape_text(const torch::Tensor& t) {
  std::ostringstream s;
  s << t.sizes();
  return s.str();
}

class Dinov2Features : public FeatureExtractor {
 public:
  Dinov2Features(const std::string& path, DinoResize mode, torch::Device device)
      : path_(path), mode_(mode), device_(device) {
    if (!std::filesystem::is_regular_file(path))
      throw CheckpointError(path + ": DINOv2 TorchScript file not found; " + kConvert);
    try {
      module_ = torch::jit::load(path, device);
    } catch (const c10::Error&) {
      throw CheckpointError(path + ": not a TorchScript archive (--features dinov2:PATH); " + kConvert);
    }
    module_.eval();
    // One probe image fixes D and catches a module that is not a CLS-embedding network
    // (e.g. one still carrying a classifier head or returning patch tokens).
    torch::NoGradGuard g;
    torch::IValue out;
    try {
      out = module_.forward({torch::zeros({1, 3, 224, 224}, torch::TensorOptions().device(device))});
    } catch (const std::exception&) {
      throw CheckpointError(path + ": forward on a (1, 3, 224, 224) float32 image fails; " + kConvert);
    }
    if (!out.isTensor() || out.toTensor().dim() != 2 || out.toTensor().size(0) != 1)
      throw CheckpointError(path + ": maps a (1, 3, 224, 224) image to " +
                            (out.isTensor() ? shape_text(out.toTensor()) : std::string("a non-tensor")) +
                            ", not (1, D) CLS embeddings; " + kConvert);
    dim_ = out.toTensor().size(1);
    if (dim_ > kMaxFeatureDim)
      throw CheckpointError(path + ": gives " + std::to_string(dim_) + "-d features, more than the " +
                            std::to_string(kMaxFeatureDim) + " a DINOv2 embedding has (ViT-g: 1536); it is no CLS-"
                            "embedding network (a classifier head?): " + kConvert);
    if (!torch::isfinite(out.toTensor()).all().item<bool>())
      throw CheckpointError(path + ": gives NaN or Inf features for a (1, 3, 224, 224) image; its weights are "
                            "damaged: " + kConvert);
    desc_ = "DINOv2 (TorchScript " + path + ", " + std::to_string(dim_) + "-d CLS features), resize " +
            to_string(mode_);
  }

  FeatureBatch compute(const torch::Tensor& images) override {  // called through extract() (features.h)
    torch::NoGradGuard g;
    auto x = preprocess_for_dinov2(images.to(device_), mode_);
    auto f = module_.forward({x}).toTensor();
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
  torch::jit::Module module_;
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
