// The domain classifier (save/load, input adaptation) and the streaming
// feature pipeline on it.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "metrics/classifier.h"
#include "metrics/fid.h"
#include "tests/metrics/helpers.h"

using namespace hamgan;

TEST(Classifier, SaveLoadRoundTripKeepsOutputsAndConfig) {
  auto dir = test::temp_dir("classifier");
  ClassifierConfig c;
  c.channels = 3;
  c.image_size = 28;
  c.feature_dim = 64;
  c.width = 8;
  c.num_classes = 7;
  FeatureClassifier net(c);
  // A few training-mode passes so BN running statistics differ from their defaults.
  for (int i = 0; i < 3; ++i) net->forward(torch::randn({8, 3, 28, 28}));
  net->eval();
  auto x = torch::rand({4, 3, 28, 28}) * 2 - 1;
  auto before = net->forward(x);
  save_classifier(dir + "/cls.pt", net);
  auto loaded = load_classifier(dir + "/cls.pt");
  EXPECT_EQ(loaded->config().channels, 3);
  EXPECT_EQ(loaded->config().image_size, 28);
  EXPECT_EQ(loaded->config().feature_dim, 64);
  EXPECT_EQ(loaded->config().num_classes, 7);
  EXPECT_TRUE(torch::allclose(loaded->forward(x), before, 0, 0));
  EXPECT_EQ(loaded->features(x).sizes(), (std::vector<int64_t>{4, 64}));
  EXPECT_TRUE((loaded->features(x) >= 0).all().item<bool>());  // post-ReLU penultimate layer
}

TEST(Classifier, ForeignFilesAreCheckpointErrors) {
  auto dir = test::temp_dir("classifier_bad");
  EXPECT_THROW(load_classifier(dir + "/missing.pt"), CheckpointError);
  torch::serialize::OutputArchive a;
  a.write("x", torch::ones({1}));
  a.save_to(dir + "/other.pt");
  EXPECT_THROW(load_classifier(dir + "/other.pt"), CheckpointError);
}

TEST(Classifier, InputAdaptation) {
  ClassifierConfig gray;  // 1 × 32
  auto rgb = torch::tensor({255, 0, 0, 0, 255, 0, 0, 0, 255}, torch::kUInt8).view({1, 3, 1, 3})
                 .repeat({1, 1, 32, 1}).repeat({1, 1, 1, 11}).slice(3, 0, 32);  // (1, 3, 32, 32)
  auto x = classifier_input(rgb, gray);
  ASSERT_EQ(x.sizes(), (std::vector<int64_t>{1, 1, 32, 32}));
  // Pure red, green, blue pixels → ITU-R 601 luma 0.299/0.587/0.114, mapped to [-1, 1].
  EXPECT_NEAR(x[0][0][0][0].item<float>(), 0.299f * 255 / 127.5f - 1, 1e-5);
  EXPECT_NEAR(x[0][0][0][1].item<float>(), 0.587f * 255 / 127.5f - 1, 1e-5);
  EXPECT_NEAR(x[0][0][0][2].item<float>(), 0.114f * 255 / 127.5f - 1, 1e-5);
  ClassifierConfig color;
  color.channels = 3;
  auto g = classifier_input(torch::full({2, 1, 28, 28}, 255, torch::kUInt8), color);
  EXPECT_EQ(g.sizes(), (std::vector<int64_t>{2, 3, 32, 32}));
  EXPECT_NEAR(g.min().item<float>(), 1.0f, 1e-6);
}

TEST(Extract, StreamedStatsEqualOneShotFloat64) {
  ClassifierConfig c;
  c.width = 8;
  c.feature_dim = 16;
  FeatureClassifier net(c);
  auto fx = make_classifier_features(net, torch::kCPU, "test");
  auto all = torch::randint(0, 256, {103, 1, 32, 32}, torch::kUInt8);
  auto source = make_callable_source(
      [&](int64_t n, int64_t off) { return all.slice(0, off, off + n); }, all.size(0), "fixed images");
  auto side = extract_features(*source, *fx, 10, true, true);
  ASSERT_EQ(side.stats.n, 103);
  torch::NoGradGuard g;
  auto f = net->features(classifier_input(all, c)).to(torch::kFloat64);  // one batch
  auto mu = f.mean(0);
  auto centered = f - mu;
  auto sigma = centered.t().matmul(centered) / 102.0;
  EXPECT_LE((side.stats.mu - mu).abs().max().item<double>(), 1e-5);
  EXPECT_LE((side.stats.sigma - sigma).abs().max().item<double>(), 1e-5 * sigma.abs().max().item<double>() + 1e-9);
  EXPECT_EQ(side.features.sizes(), (std::vector<int64_t>{103, 16}));
  EXPECT_EQ(side.logits.sizes(), (std::vector<int64_t>{103, 10}));
}

TEST(ImageSources, QuantizeAndMakerChecks) {
  auto x = torch::tensor({-1.0f, -0.999f, 0.0f, 1.0f, 1.5f});
  // x·127.5 + 128, clamped, truncated (StyleGAN2-ADA).
  auto q = quantize_images(x);
  EXPECT_EQ(q[0].item<uint8_t>(), 0);
  EXPECT_EQ(q[1].item<uint8_t>(), 0);  // 0.627 → 0
  EXPECT_EQ(q[2].item<uint8_t>(), 128);
  EXPECT_EQ(q[3].item<uint8_t>(), 255);
  EXPECT_EQ(q[4].item<uint8_t>(), 255);
  auto bad = make_callable_source([](int64_t n, int64_t) { return torch::zeros({n, 3, 4, 4}); }, 4, "float maker");
  EXPECT_THROW(bad->batch(0, 2), DataError);
}

// Checkpoint inputs reach a generator only through the caller's opener (metrics knows no generators).
TEST(ImageSources, CheckpointInputsGoThroughTheCallersOpener) {
  SampleOptions o;
  o.n = 10;
  EXPECT_THROW(open_image_source("run/x.pt", o, {}), ConfigError);
  std::string asked;
  auto source = open_image_source("run/x.pt", o, [&](const std::string& path, const SampleOptions& so) {
    asked = path;
    return make_callable_source([](int64_t n, int64_t) { return torch::zeros({n, 1, 8, 8}, torch::kUInt8); }, so.n,
                                "stand-in generator");
  });
  EXPECT_EQ(asked, "run/x.pt");
  EXPECT_EQ(source->size(), 10);
  o.n = 0;
  EXPECT_THROW(open_image_source("run/x.pt", o, {}), ConfigError);
}
