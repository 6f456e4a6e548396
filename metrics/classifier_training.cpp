#include "metrics/classifier_training.h"

#include <cmath>
#include <filesystem>
#include <iostream>

#include "core/stop_signal.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/progress.h"
#include "data/loader.h"

namespace hamgan {
namespace {

// The first n examples of a data set (tests train on a slice).
struct Prefix : Dataset {
  Prefix(std::shared_ptr<Dataset> b, int64_t count) : base(std::move(b)), n(count) {}
  int64_t size() const override { return n; }
  Example get(int64_t i) const override { return base->get(i); }
  int64_t num_classes() const override { return base->num_classes(); }
  int64_t channels() const override { return base->channels(); }
  int64_t height() const override { return base->height(); }
  int64_t width() const override { return base->width(); }
  std::string describe() const override { return base->describe() + " (first " + std::to_string(n) + ")"; }
  std::shared_ptr<Dataset> base;
  int64_t n;
};

}  // namespace

double classifier_accuracy(FeatureClassifier& net, const Dataset& data, int64_t max, int64_t batch) {
  torch::NoGradGuard no_grad;
  const bool was_training = net->is_training();
  net->eval();
  const auto device = net->parameters().front().device();
  const int64_t n = max > 0 ? std::min(max, data.size()) : data.size();
  int64_t correct = 0;
  for (int64_t i = 0; i < n; i += batch) {
    const int64_t j = std::min(n, i + batch);
    std::vector<torch::Tensor> images;
    std::vector<int64_t> labels;
    for (int64_t k = i; k < j; ++k) {
      Example e = data.get(k);
      images.push_back(e.image);
      labels.push_back(e.label);
    }
    const torch::Tensor x = classifier_input(torch::stack(images), net->config()).to(device);
    const torch::Tensor pred = net->forward(x).argmax(1).cpu();
    correct += (pred == torch::tensor(labels)).sum().item<int64_t>();
  }
  net->train(was_training);
  return static_cast<double>(correct) / static_cast<double>(n);
}

ClassifierTrainResult train_classifier(const ClassifierTrainConfig& cfg) {
  if (cfg.epochs <= 0 || cfg.batch_size <= 0 || !(cfg.lr > 0))
    throw ConfigError("train-classifier: epochs, batch_size and lr must be positive");
  const torch::Device device = resolve_device(cfg.device);
  torch::manual_seed(cfg.seed);
  DatasetSpec spec;
  spec.path = cfg.dataset;
  spec.size = cfg.image_size;
  spec.channels = cfg.channels;
  spec.split = "train";
  auto train_set = open_dataset(spec);
  spec.split = "test";
  auto test_set = open_dataset(spec);

  ClassifierConfig cc;
  cc.channels = cfg.channels;
  cc.image_size = cfg.image_size;
  cc.num_classes = train_set->num_classes();
  cc.width = cfg.width;
  cc.feature_dim = cfg.feature_dim;
  FeatureClassifier net(cc);
  net->to(device);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(cfg.lr));

  const int64_t n_train = cfg.max_train > 0 ? std::min(cfg.max_train, train_set->size()) : train_set->size();
  const int64_t total = std::max<int64_t>(1, n_train / cfg.batch_size) * cfg.epochs;
  LoaderOptions lo;
  lo.batch_size = cfg.batch_size;
  lo.seed = cfg.seed;
  lo.workers = 1;
  DataLoader loader(n_train < train_set->size() ? std::make_shared<Prefix>(train_set, n_train) : train_set, lo);

  ProgressEnabledScope progress(cfg.progress);
  ProgressBar bar("train-classifier", total, "batch");
  net->train();
  for (int64_t step = 0; step < total; ++step) {
    const double lr = 0.5 * cfg.lr * (1 + std::cos(M_PI * static_cast<double>(step) / static_cast<double>(total)));
    for (auto& g : opt.param_groups()) static_cast<torch::optim::AdamOptions&>(g.options()).lr(lr);
    throw_if_stop_requested("train-classifier");  // the file is written only at the end: nothing half-done
    const Batch b = loader.next();  // float [-1, 1] at image_size: the classifier's input
    const torch::Tensor loss =
        torch::nn::functional::cross_entropy(net->forward(model_images(b, device)), b.labels.to(device));
    opt.zero_grad();
    loss.backward();
    opt.step();
    bar.advance();
    if (step % 20 == 0) {
      char post[32];
      std::snprintf(post, sizeof(post), "loss %.4f", loss.item<double>());
      bar.set_postfix(post);
    }
  }
  bar.finish();
  ClassifierTrainResult r;
  r.test_accuracy = classifier_accuracy(net, *test_set, cfg.max_test);
  if (r.test_accuracy < cfg.min_accuracy)
    throw Error("train-classifier: test accuracy " + std::to_string(r.test_accuracy) + " is below min_accuracy " +
                std::to_string(cfg.min_accuracy) + "; nothing written (train longer with --epochs)");
  save_classifier(cfg.out, net);
  r.path = cfg.out;
  return r;
}

FeatureClassifier ensure_classifier(const std::string& path, torch::Device device) {
  if (!std::filesystem::exists(path)) {
    std::cerr << "classifier: " << path << " is missing; training it now (as 'hamgan train-classifier')\n";
    ClassifierTrainConfig cfg;
    cfg.out = path;
    cfg.device = device_name(device);  // keeps the index: cuda:1 trains on cuda:1
    cfg.progress = ProgressBar::enabled();  // a quiet run stays quiet
    const auto r = train_classifier(cfg);
    std::cerr << "classifier: test accuracy " << r.test_accuracy << " -> " << r.path << "\n";
  }
  return load_classifier(path, device);
}

}  // namespace hamgan
