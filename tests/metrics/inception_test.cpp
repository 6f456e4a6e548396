// The FID Inception against pytorch-fid's network on the same random weights,
// the TorchScript path against a module with NVIDIA's interface, and the three
// resize modes against torch-fidelity (TF1 bilinear), PIL (clean-fid) and the
// TorchScript grid_sample resize. References: tests/python/inception_reference.py.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/stop_signal.h"
#include "metrics/features.h"
#include "metrics/inception.h"
#include "metrics/npz.h"
#include "metrics/preprocess.h"
#include "tests/metrics/helpers.h"

using namespace hamgan;

namespace {

using test::max_abs;

}  // namespace

TEST(Inception, FeaturesEqualPytorchFidOnSameWeights) {
  NEED_NPZ_REFERENCE("inception_reference.py", "inception", "pytorch-fid/torch-fidelity");
  FeatureOptions o;
  o.spec = "inception:" + R.dir + "/weights.pth";
  o.resize = ResizeMode::legacy_pytorch;  // pytorch-fid's own preprocessing
  o.device = "cpu";
  auto fx = make_feature_extractor(o);
  auto out = fx->extract(R.ref["images"]);
  ASSERT_EQ(out.features.sizes(), (std::vector<int64_t>{2, 2048}));
  EXPECT_GT(R.ref["features"].abs().max().item<double>(), 1e-2);  // not a degenerate all-zero network
  EXPECT_LE(max_abs(out.features, R.ref["features"]), 1e-4);
  EXPECT_LE(max_abs(out.logits, R.ref["logits"]), 1e-4);
}

TEST(Inception, LegacyFormatWeightsExplainConversion) {
  NEED_NPZ_REFERENCE("inception_reference.py", "inception", "pytorch-fid/torch-fidelity");
  FidInceptionV3 net;
  try {
    load_pytorch_fid_weights(net, R.dir + "/weights_legacy.pth");
    FAIL() << "legacy file loaded";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("scripts/convert_inception.py"), std::string::npos) << e.what();
  }
  // The documented converter makes it loadable, with identical weights.
  std::string cmd = HAMGAN_PYTHON " " + std::string(HAMGAN_SOURCE_DIR) + "/scripts/convert_inception.py " + R.dir +
                    "/weights_legacy.pth " + R.dir + "/converted.pth > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  load_pytorch_fid_weights(net, R.dir + "/converted.pth");
  FidInceptionV3 direct;
  load_pytorch_fid_weights(direct, R.dir + "/weights.pth");
  EXPECT_TRUE(torch::equal(net->fc_weight(), direct->fc_weight()));
}

TEST(Inception, WrongWeightsAreCheckpointErrors) {
  auto dir = test::temp_dir("inception_bad");
  FidInceptionV3 net;
  EXPECT_THROW(load_pytorch_fid_weights(net, dir + "/none.pth"), CheckpointError);
  torch::save(torch::ones({2}), dir + "/tensor.pth");
  EXPECT_THROW(load_pytorch_fid_weights(net, dir + "/tensor.pth"), CheckpointError);
}

TEST(Inception, NoWeightsIsOneClearLine) {
  unsetenv("HAMGAN_INCEPTION");
  FeatureOptions o;
  try {
    make_feature_extractor(o);
    FAIL() << "no error without weights";
  } catch (const ConfigError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos);
    EXPECT_NE(m.find("inception-2015-12-05.pt"), std::string::npos);
    EXPECT_NE(m.find("HAMGAN_INCEPTION"), std::string::npos);
    EXPECT_NE(m.find("--inception"), std::string::npos);
  }
}

// A directory given as the weights (a common slip: the folder the file was downloaded to) is named as one.
TEST(Inception, ADirectoryAsWeightsIsOneLineNamingIt) {
  const std::string dir = test::temp_dir("inception_dir_weights");
  for (const std::string name : {"weights.pth", "weights.pt"}) {
    std::filesystem::create_directories(dir + "/" + name);
    FeatureOptions o;
    o.inception = dir + "/" + name;
    o.device = "cpu";
    try {
      make_feature_extractor(o);
      FAIL() << "a directory was taken for weights";
    } catch (const ConfigError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      EXPECT_NE(m.find(dir + "/" + name + " is a directory"), std::string::npos) << m;
    }
  }
}

TEST(Inception, TorchScriptInterfaceBothModes) {
  NEED_NPZ_REFERENCE("inception_reference.py", "inception", "pytorch-fid/torch-fidelity");
  FeatureOptions o;
  o.spec = "inception:" + R.dir + "/mimic.pt";
  o.device = "cpu";
  o.resize = ResizeMode::legacy_tensorflow;  // module-internal resize
  auto tf = make_feature_extractor(o)->extract(R.ref["images"]);
  EXPECT_LE(max_abs(tf.features, R.ref["ts_features_tf"]), 1e-4);
  EXPECT_LE(max_abs(tf.logits, R.ref["ts_logits"]), 1e-4);
  o.resize = ResizeMode::clean;  // our PIL-bicubic resize, then the `layers` submodule
  auto clean = make_feature_extractor(o)->extract(R.ref["images"]);
  EXPECT_LE(max_abs(clean.features, R.ref["ts_features_clean"]), 1e-4);
}

TEST(Preprocess, ResizeModesMatchReferences) {
  NEED_NPZ_REFERENCE("inception_reference.py", "inception", "pytorch-fid/torch-fidelity");
  for (const char* which : {"small", "big"}) {
    SCOPED_TRACE(which);
    auto img = R.ref[std::string(which) == "small" ? "images" : "big"];
    // Undo each mode's normalisation to compare on the 0..255 scale.
    auto tf = preprocess_for_inception(img, ResizeMode::legacy_tensorflow) * 128 + 128;
    EXPECT_LE(max_abs(tf, R.ref[std::string("tf1_") + which]), 2e-3) << "vs torch-fidelity TF1 bilinear";
    // NVIDIA's affine_grid/grid_sample samples the same points, but through normalised
    // float32 coordinates: shrinking 420→299 moves values by ~0.01 of 255.
    EXPECT_LE(max_abs(tf, R.ref[std::string("grid_") + which]), 0.03) << "vs NVIDIA grid_sample resize";
    auto clean = preprocess_for_inception(img, ResizeMode::clean) * 128 + 128;
    EXPECT_LE(max_abs(clean, R.ref[std::string("pil_") + which]), 2e-3) << "vs PIL bicubic (clean-fid)";
  }
  // legacy_pytorch is F.interpolate itself; check its normalisation 2·x/255 − 1 at an identity size.
  auto same = torch::randint(0, 256, {1, 1, 299, 299}, torch::kUInt8);
  auto p = preprocess_for_inception(same, ResizeMode::legacy_pytorch);
  EXPECT_LE(max_abs(p[0][2], same[0][0].to(torch::kFloat64) / 255.0 * 2.0 - 1.0), 1e-6);
}

// Random bytes are not called a legacy file to convert, and a truncated archive is one plain line.
TEST(Inception, RandomBytesAndATruncatedArchiveAreNamedForWhatTheyAre) {
  const std::string dir = test::temp_dir("inception_bad_weights");
  std::string archive;
  {
    const auto zip = torch::pickle_save(torch::IValue(torch::ones({64, 64})));
    archive.assign(zip.begin(), zip.end());
  }
  ASSERT_EQ(archive.substr(0, 2), "PK");
  std::string random(4096, '\0');
  for (size_t i = 0; i < random.size(); ++i) random[i] = static_cast<char>((i * 2654435761u) >> 13);
  const std::pair<std::string, std::string> cases[] = {
      {random, "neither a torch.save file nor a legacy"},
      {archive.substr(0, archive.size() / 2), "damaged or truncated torch.save archive"}};
  for (const auto& [bytes, expected] : cases) {
    const std::string path = dir + "/weights.pth";
    std::ofstream(path, std::ios::binary) << bytes;
    FidInceptionV3 net;
    try {
      load_pytorch_fid_weights(net, path);
      FAIL() << "bad weights were accepted";
    } catch (const CheckpointError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      EXPECT_NE(m.find(expected), std::string::npos) << m;
      EXPECT_EQ(m.find("legacy (pre-1.6)"), std::string::npos) << m;
    }
  }
}

// On a CPU one batch of the Inception takes seconds to minutes: a stop request ends
// the forward pass between its blocks, not after the batch.
TEST(Inception, AStopRequestEndsAForwardPassBetweenBlocks) {
  {
    StopSignalGuard signals;
    FidInceptionV3 net;
    net->eval();
    torch::NoGradGuard no_grad;
    request_stop();
    EXPECT_THROW(net->forward(torch::zeros({1, 3, 299, 299})), Interrupted);
  }
  StopSignalGuard cleared;  // a new guard clears the request: it does not outlive this test
}
