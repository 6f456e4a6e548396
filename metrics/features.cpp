// Feature extractor implementations (see features.h).
#include "metrics/features.h"

#include "core/device.h"

#include <torch/script.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "core/errors.h"
#include "core/finite.h"
#include "core/text.h"
#include "metrics/classifier.h"
#include "metrics/dinov2_features.h"
#include "metrics/inception.h"

namespace hamgan {
namespace {

const std::string kHowTo =
    "download NVIDIA's inception-2015-12-05.pt (StyleGAN2-ADA/clean-fid) or pytorch-fid's "
    "pt_inception-2015-12-05-6726825d.pth and pass --inception PATH or set HAMGAN_INCEPTION=PATH "
    "(or use --features classifier:PATH)";
const std::string kNoWeights = "fid: no Inception weights: " + kHowTo;

// NaN weights load without complaint and surface only as a NaN FID, after a whole
// evaluation (in training, after thousands of steps): refuse them when read.
void check_finite_weights(const torch::nn::Module& net, const std::string& path) {
  const std::string bad = first_nonfinite_tensor(net);
  if (!bad.empty())
    throw CheckpointError(path + ": Inception weight '" + bad +
                          "' holds NaN or Inf; the file is damaged: download or convert it again");
}

class NativeInception : public FeatureExtractor {
 public:
  NativeInception(const std::string& path, ResizeMode mode, torch::Device device, std::optional<SfidLayer> sfid)
      : mode_(mode), device_(device), sfid_(sfid) {
    if (path.empty()) {
      torch::manual_seed(0);
      desc_ = "FID Inception-v3 with RANDOM weights (benchmark only; numbers are not FID)";
    } else {
      load_pytorch_fid_weights(net_, path);
      check_finite_weights(*net_, path);
      desc_ = "FID Inception-v3 (pytorch-fid weights " + path + ")";
    }
    desc_ += ", resize " + to_string(mode);
    if (sfid_) desc_ += ", sFID layer " + to_string(*sfid_);
    net_->to(device_);
    net_->eval();
  }
  FeatureBatch compute(const torch::Tensor& images) override {
    torch::NoGradGuard g;
    auto x = preprocess_for_inception(images.to(device_), mode_);
    auto out = net_->forward(x, sfid_);
    return {out.pool, torch::matmul(out.pool, net_->fc_weight().t()), out.spatial};
  }
  int64_t dim() const override { return 2048; }
  std::string describe() const override { return desc_; }
  torch::Device device() const override { return device_; }

 private:
  FidInceptionV3 net_;
  ResizeMode mode_;
  torch::Device device_;
  std::optional<SfidLayer> sfid_;
  std::string desc_;
};

// NVIDIA's inception-2015-12-05.pt (docs/metrics.md, "Sources"): forward(img 0..255,
// return_features) resizes internally (legacy_tensorflow); other modes resize
// here and call the `layers` submodule on the normalised 299×299 input.
class TorchScriptInception : public FeatureExtractor {
 public:
  TorchScriptInception(const std::string& path, ResizeMode mode, torch::Device device) : mode_(mode), device_(device) {
    try {
      module_ = torch::jit::load(path, device);
    } catch (const c10::Error& e) {
      throw CheckpointError(path + ": not a TorchScript archive (a .pt Inception must be NVIDIA's inception-2015-12-05.pt; "
                            "pytorch-fid's state dict should end in .pth)");
    }
    module_.eval();
    for (const auto& p : module_.named_parameters())
      if (p.name == "output.weight") output_weight_ = p.value;
    if (!module_.find_method("forward") || !module_.hasattr("layers"))
      throw CheckpointError(path + ": TorchScript module lacks forward/layers (not inception-2015-12-05.pt)");
    desc_ = "FID Inception-v3 (TorchScript " + path + "), resize " + to_string(mode) +
            (mode == ResizeMode::legacy_tensorflow ? " (module-internal)" : "");
  }
  FeatureBatch compute(const torch::Tensor& images) override {
    torch::NoGradGuard g;
    auto x = images.to(device_);
    torch::Tensor f;
    if (mode_ == ResizeMode::legacy_tensorflow) {
      if (x.size(1) == 1) x = x.expand({-1, 3, -1, -1});
      f = module_.get_method("forward")({x.to(torch::kFloat32)}, {{"return_features", true}}).toTensor();
    } else {
      auto layers = module_.attr("layers").toModule();
      f = layers.forward({preprocess_for_inception(x, mode_)}).toTensor();
    }
    f = f.reshape({-1, 2048}).to(torch::kFloat32);
    torch::Tensor logits;
    if (output_weight_.defined()) logits = torch::matmul(f, output_weight_.to(f.device(), f.scalar_type()).t());
    return {f, logits};
  }
  int64_t dim() const override { return 2048; }
  std::string describe() const override { return desc_; }
  torch::Device device() const override { return device_; }

 private:
  torch::jit::Module module_;
  torch::Tensor output_weight_;
  ResizeMode mode_;
  torch::Device device_;
  std::string desc_;
};

class ClassifierFeatures : public FeatureExtractor {
 public:
  ClassifierFeatures(FeatureClassifier net, torch::Device device, const std::string& name)
      : net_(std::move(net)), device_(device) {
    const auto& c = net_->config();
    net_->to(device_);
    net_->eval();
    desc_ = "classifier " + name + " (" + std::to_string(c.feature_dim) + "-d penultimate features, " +
            std::to_string(c.channels) + "×" + std::to_string(c.image_size) + "²)";
  }
  FeatureBatch compute(const torch::Tensor& images) override {
    torch::NoGradGuard g;
    auto f = net_->features(classifier_input(images.to(device_), net_->config()));
    return {f, net_->head(f)};
  }
  int64_t dim() const override { return net_->config().feature_dim; }
  std::string describe() const override { return desc_; }
  torch::Device device() const override { return device_; }

 private:
  FeatureClassifier net_;
  torch::Device device_;
  std::string desc_;
};

}  // namespace

std::unique_ptr<FeatureExtractor> make_classifier_features(const FeatureClassifier& net, torch::Device device,
                                                           std::string description) {
  return std::make_unique<ClassifierFeatures>(net, device, description);
}

std::string resolve_inception_path(const FeatureOptions& options) {
  if (options.spec.rfind("inception:", 0) == 0) return options.spec.substr(10);
  if (!options.inception.empty()) return options.inception;
  const char* env = std::getenv("HAMGAN_INCEPTION");
  return env ? std::string(env) : std::string();
}

std::unique_ptr<FeatureExtractor> make_feature_extractor(const FeatureOptions& options) {
  auto device = resolve_device(options.device);
  if (options.spec.rfind("classifier:", 0) == 0) {
    auto path = options.spec.substr(11);
    if (path.empty()) throw ConfigError("--features classifier:PATH needs the classifier file");
    return std::make_unique<ClassifierFeatures>(load_classifier(path, device), device, path);
  }
  if (options.spec.rfind("dinov2:", 0) == 0) {
    const auto path = options.spec.substr(7);
    if (path.empty()) throw ConfigError("--features dinov2:PATH needs the TorchScript file (scripts/convert_dinov2.py)");
    return make_dinov2_extractor(path, options.dinov2_resize, device);
  }
  if (options.spec != "inception" && options.spec.rfind("inception:", 0) != 0)
    throw ConfigError("--features: unknown '" + options.spec +
                      "' (use inception, inception:PATH, dinov2:PATH or classifier:PATH)");
  auto path = resolve_inception_path(options);
  const auto sfid = options.sfid ? std::optional<SfidLayer>(options.sfid_layer) : std::nullopt;
  if (path.empty()) {
    if (options.allow_random) return std::make_unique<NativeInception>("", options.resize, device, sfid);
    throw ConfigError(kNoWeights);
  }
  if (!std::filesystem::exists(path))
    throw ConfigError("fid: Inception weights " + path + " not found: " + kHowTo);
  if (std::filesystem::is_directory(path))  // else the loader fails with the stream's own words
    throw ConfigError("fid: Inception weights " + path + " is a directory; give the weights file in it: " + kHowTo);
  if (ends_with(path, ".pt")) {
    // sFID reads an inner activation; the TorchScript file's `layers` submodules are no
    // documented interface, and no reference checks a walk through them.
    if (options.sfid)
      throw ConfigError("--sfid: " + path + " is NVIDIA's TorchScript Inception; sFID needs pytorch-fid's "
                        "pt_inception-2015-12-05-6726825d.pth (same network) as --inception PATH");
    return std::make_unique<TorchScriptInception>(path, options.resize, device);
  }
  return std::make_unique<NativeInception>(path, options.resize, device, sfid);
}

}  // namespace hamgan
