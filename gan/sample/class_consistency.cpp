#include "gan/sample/class_consistency.h"

#include "core/stop_signal.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/rng.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/sample/load_generator.h"
#include "gan/sample/noise.h"
#include "gan/sample/sampler.h"
#include "metrics/classifier_fit.h"
#include "metrics/classifier_training.h"
#include "metrics/image_source.h"
#include "core/seeds.h"

namespace hamgan {

ClassConsistency class_consistency(Generator& g, FeatureClassifier& classifier, int64_t n, uint64_t seed,
                                   int64_t batch_size) {
  const ModelConfig& mc = g->config();
  if (classifier->config().num_classes != mc.num_classes)
    throw ConfigError("class-consistency: the classifier has " + std::to_string(classifier->config().num_classes) +
                      " classes, the generator " + std::to_string(mc.num_classes));
  torch::NoGradGuard no_grad;
  // Blocks that draw random numbers in eval (the NMF's random bases) follow the seed too; the caller's
  // random stream is left as it was.
  ScopedRngRestore keep_rng;
  const FixedNoise noise(n, mc.z_dim, mc.num_classes, seed);
  const bool g_training = g->is_training(), c_training = classifier->is_training();
  g->eval();
  classifier->eval();
  const auto device = classifier->parameters().front().device();
  torch::Tensor hits = torch::zeros({mc.num_classes}, torch::kLong), counts = torch::zeros({mc.num_classes}, torch::kLong);
  for (int64_t i = 0; i < n; i += batch_size) {
    throw_if_stop_requested("class-consistency");
    const int64_t j = std::min(n, i + batch_size);
    const NoiseBatch b = noise.slice(i, j - i);
    const torch::Tensor& y = b.labels;
    const torch::Tensor images = quantize_images(generate(g, b.z, y, batch_size));  // uint8
    const torch::Tensor pred =
        classifier->forward(classifier_input(images, classifier->config()).to(device)).argmax(1).cpu();
    hits.index_add_(0, y, (pred == y).to(torch::kLong));
    counts.index_add_(0, y, torch::ones_like(y));
  }
  g->train(g_training);
  classifier->train(c_training);
  ClassConsistency r;
  r.n = n;
  r.overall = static_cast<double>(hits.sum().item<int64_t>()) / static_cast<double>(n);
  for (int64_t k = 0; k < mc.num_classes; ++k)
    r.per_class.push_back(counts[k].item<int64_t>() > 0 ? static_cast<double>(hits[k].item<int64_t>()) /
                                                              static_cast<double>(counts[k].item<int64_t>())
                                                        : 0.0);
  return r;
}

ClassConsistency run_class_consistency(const ClassConsistencyConfig& cfg) {
  if (cfg.n <= 0) throw ConfigError("class-consistency: n must be positive");
  const torch::Device device = resolve_device(cfg.device);
  const std::string file = resolve_checkpoint_path(cfg.checkpoint);
  // Before G is loaded and a missing classifier trained: both take long for a pair that does not fit.
  const ModelConfig model = read_checkpoint_model_config(file);
  JudgedImages images;
  images.command = "class-consistency";
  images.what = "the generator " + file + " makes";
  images.channels = model.image_channels;
  images.num_classes = model.num_classes;
  images.image_size = model.resolution;
  images.use = "--classifier FILE";
  check_classifier_fits(cfg.classifier, classifier_config_at(cfg.classifier), images);
  Generator g = load_generator(file, !cfg.raw, device, cfg.standing_stats,
                               derived_seed(cfg.seed, SeedPurpose::kLoadStandingStats),
                               resample_override(cfg.resample_conv));
  FeatureClassifier classifier = ensure_classifier(cfg.classifier, device);
  return class_consistency(g, classifier, cfg.n, cfg.seed);
}

}  // namespace hamgan
