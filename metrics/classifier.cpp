// Domain classifier for FID features (see classifier.h).
#include "metrics/classifier.h"

#include "core/atomic_file.h"
#include "core/errors.h"

namespace hamgan {
namespace {

constexpr int64_t kFormatVersion = 1;

void conv_bn_relu(torch::nn::Sequential& seq, int64_t in, int64_t out) {
  seq->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).padding(1).bias(false)));
  seq->push_back(torch::nn::BatchNorm2d(out));
  seq->push_back(torch::nn::ReLU());
}

}  // namespace

FeatureClassifierImpl::FeatureClassifierImpl(const ClassifierConfig& config) : config_(config) {
  if (config.channels != 1 && config.channels != 3) throw ModelError("classifier: channels must be 1 or 3");
  if (config.image_size < 8) throw ModelError("classifier: image_size must be at least 8");
  const int64_t w = config.width;
  torch::nn::Sequential seq;
  conv_bn_relu(seq, config.channels, w);
  conv_bn_relu(seq, w, w);
  seq->push_back(torch::nn::MaxPool2d(2));  // 32 → 16 (28 → 14)
  conv_bn_relu(seq, w, 2 * w);
  conv_bn_relu(seq, 2 * w, 2 * w);
  seq->push_back(torch::nn::MaxPool2d(2));  // 16 → 8 (14 → 7)
  conv_bn_relu(seq, 2 * w, 4 * w);
  seq->push_back(torch::nn::AdaptiveAvgPool2d(1));  // (B, 4w, 1, 1)
  body = register_module("body", seq);
  fc1 = register_module("fc1", torch::nn::Linear(4 * w, config.feature_dim));
  fc2 = register_module("fc2", torch::nn::Linear(config.feature_dim, config.num_classes));
}

torch::Tensor FeatureClassifierImpl::features(const torch::Tensor& x) {
  auto h = body->forward(x).flatten(1);  // (B, 4w)
  return torch::relu(fc1(h));            // (B, feature_dim)
}

torch::Tensor FeatureClassifierImpl::head(const torch::Tensor& f) { return fc2(f); }

torch::Tensor FeatureClassifierImpl::forward(const torch::Tensor& x) { return head(features(x)); }

torch::Tensor classifier_input(const torch::Tensor& images, const ClassifierConfig& config) {
  TORCH_CHECK(images.dim() == 4, "classifier_input expects (B, C, H, W)");
  auto x = images.to(torch::kFloat32);
  if (x.size(1) == 3 && config.channels == 1) {
    auto luma = torch::tensor({0.299f, 0.587f, 0.114f}, x.options()).view({1, 3, 1, 1});
    x = (x * luma).sum(1, true);
  } else if (x.size(1) == 1 && config.channels == 3) {
    x = x.expand({-1, 3, -1, -1});
  } else if (x.size(1) != config.channels) {
    throw DataError("classifier: images have " + std::to_string(x.size(1)) + " channels, classifier takes " +
                    std::to_string(config.channels));
  }
  x = x / 127.5f - 1.0f;
  if (x.size(2) != config.image_size || x.size(3) != config.image_size)
    x = torch::nn::functional::interpolate(x, torch::nn::functional::InterpolateFuncOptions()
                                                  .size(std::vector<int64_t>{config.image_size, config.image_size})
                                                  .mode(torch::kBilinear)
                                                  .align_corners(false));
  return x;
}

void save_classifier(const std::string& path, FeatureClassifier& net) {
  const auto& c = net->config();
  write_atomically(path, [&](const std::string& tmp) {
    torch::serialize::OutputArchive archive;
    net->save(archive);
    torch::serialize::OutputArchive meta;
    meta.write("format_version", torch::IValue(kFormatVersion));
    meta.write("channels", torch::IValue(c.channels));
    meta.write("image_size", torch::IValue(c.image_size));
    meta.write("num_classes", torch::IValue(c.num_classes));
    meta.write("width", torch::IValue(c.width));
    meta.write("feature_dim", torch::IValue(c.feature_dim));
    archive.write("hamgan_classifier", meta);
    archive.save_to(tmp);
  });
}

FeatureClassifier load_classifier(const std::string& path, torch::Device device) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path, device);
  } catch (const c10::Error& e) {
    throw CheckpointError(path + ": cannot read classifier (missing or not a file from 'hamgan train-classifier')");
  }
  torch::serialize::InputArchive meta;
  if (!archive.try_read("hamgan_classifier", meta))
    throw CheckpointError(path + ": not a HamGAN classifier file (no metadata record; train one with 'hamgan train-classifier')");
  auto get = [&](const char* key) {
    torch::IValue v;
    if (!meta.try_read(key, v) || !v.isInt()) throw CheckpointError(path + ": classifier metadata lacks '" + key + "'");
    return v.toInt();
  };
  if (get("format_version") > kFormatVersion)
    throw CheckpointError(path + ": classifier file format is newer than this build; update hamgan");
  ClassifierConfig c;
  c.channels = get("channels");
  c.image_size = get("image_size");
  c.num_classes = get("num_classes");
  c.width = get("width");
  c.feature_dim = get("feature_dim");
  FeatureClassifier net(c);
  try {
    net->load(archive);
  } catch (const c10::Error& e) {
    throw CheckpointError(path + ": classifier weights do not match its metadata (corrupt file?)");
  }
  net->to(device);
  net->eval();
  return net;
}

}  // namespace hamgan
