// FD_DINOv2: the three preprocessing modes against the tools they reproduce
// (dgm-eval/EDM2 PIL, EDM2 torch, torch-fidelity), the TorchScript extractor and
// `hamgan fid --features dinov2:FILE` on a small DINOv2 ViT with seeded random
// weights, and the load errors. References: tests/python/dinov2_reference.py.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>

#include "core/errors.h"
#include "metrics/dinov2_features.h"
#include "metrics/dinov2_preprocess.h"
#include "metrics/npz.h"
#include "tests/metrics/dinov2_test_util.h"
#include "tests/metrics/helpers.h"

using namespace hamgan;

namespace {

using test::max_abs;

const DinoResize kModes[] = {DinoResize::pil_bicubic, DinoResize::torch_bicubic, DinoResize::legacy_tensorflow};

void expect_one_line_naming(const std::string& msg, const std::string& path) {
  ASSERT_FALSE(msg.empty()) << path << ": no CheckpointError";
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("convert_dinov2.py"), std::string::npos) << msg;
}

}  // namespace

TEST(Dinov2, ResizeNamesRoundTrip) {
  for (auto m : kModes) EXPECT_EQ(dino_resize_table().parse(to_string(m)), m);
  EXPECT_EQ(dino_resize_table().names(),
            (std::vector<std::string>{"pil_bicubic", "torch_bicubic", "legacy_tensorflow"}));
  EXPECT_THROW(dino_resize_table().parse("bilinear"), ConfigError);
}

TEST(Dinov2, PreprocessMatchesEachTool) {
  NEED_NPZ_REFERENCE("dinov2_reference.py", "dinov2", "timm/pytorch-fid/torch-fidelity");
  const auto mean = torch::tensor({0.485, 0.456, 0.406}).reshape({1, 3, 1, 1});
  const auto std = torch::tensor({0.229, 0.224, 0.225}).reshape({1, 3, 1, 1});
  for (auto m : kModes) {
    for (std::string tag : {"rgb", "gray"}) {
      SCOPED_TRACE(to_string(m) + " " + tag);
      auto images = R.ref.at(tag);
      auto want = R.ref.at("pre_" + to_string(m) + "_" + tag);
      auto got = preprocess_for_dinov2(images, m);
      ASSERT_EQ(got.sizes(), want.sizes());
      EXPECT_EQ(got.scalar_type(), torch::kFloat32);
      if (m == DinoResize::pil_bicubic) {  // PIL's uint8 bytes, exactly
        auto bytes = [&](const torch::Tensor& x) { return ((x.to(torch::kFloat64) * std + mean) * 255).round(); };
        EXPECT_TRUE(torch::equal(bytes(got), bytes(want)));
        EXPECT_LE(max_abs(got, want), 1e-6);
      } else {
        // torch: the same kernel; TF1: a resampling matrix against torch-fidelity's gathers
        // (float32 sums in another order: ~1e-6 on this scale).
        EXPECT_LE(max_abs(got, want), m == DinoResize::torch_bicubic ? 1e-6 : 1e-5);
      }
      // Float input 0..255 gives the same as uint8.
      EXPECT_LE(max_abs(preprocess_for_dinov2(images.to(torch::kFloat32), m), got), 1e-5);
    }
  }
}

TEST(Dinov2, FeaturesMatchReferenceNetwork) {
  NEED_NPZ_REFERENCE("dinov2_reference.py", "dinov2", "timm/pytorch-fid/torch-fidelity");
  const auto path = R.dir + "/dinov2.pt";
  for (auto m : kModes) {
    auto ex = make_dinov2_extractor(path, m, torch::kCPU);
    EXPECT_EQ(ex->dim(), R.ref.at("feat_" + to_string(m) + "_rgb").size(1));
    EXPECT_NE(ex->describe().find(path), std::string::npos) << ex->describe();
    EXPECT_NE(ex->describe().find(to_string(m)), std::string::npos) << ex->describe();
    EXPECT_EQ(ex->device(), torch::Device(torch::kCPU));
    for (std::string tag : {"rgb", "gray"}) {
      SCOPED_TRACE(to_string(m) + " " + tag);
      auto batch = ex->extract(R.ref.at(tag));
      EXPECT_FALSE(batch.logits.defined());
      EXPECT_FALSE(batch.spatial.defined());
      EXPECT_LE(max_abs(batch.features, R.ref.at("feat_" + to_string(m) + "_" + tag)), 1e-4);
    }
  }
}

TEST(Dinov2, LoadErrorsAreOneLineNamingTheFile) {
  NEED_NPZ_REFERENCE("dinov2_reference.py", "dinov2", "timm/pytorch-fid/torch-fidelity");
  auto dir = test::temp_dir("dinov2_errors");
  expect_one_line_naming(test::dinov2_load_error(dir + "/absent.pt"), dir + "/absent.pt");
  const auto junk = dir + "/junk.pt";
  std::ofstream(junk) << "not a TorchScript archive\n";
  expect_one_line_naming(test::dinov2_load_error(junk), junk);
  const auto bad = R.dir + "/bad_shape.pt";
  const auto msg = test::dinov2_load_error(bad);
  expect_one_line_naming(msg, bad);
  EXPECT_NE(msg.find("(1, D)"), std::string::npos) << msg;
}

namespace {

using test::run_cli;

// The distance line: "FD_DINOv2: <value>" (or "FID: " from a build that labels every distance so).
double parse_fd(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("(?:FD_DINOv2|FID): ([-+0-9.eE]+)"))) return NAN;
  return std::stod(m[1].str());
}

}  // namespace

TEST(Dinov2, CliFdMatchesReferenceForEachMode) {
  if (!std::getenv("HAMGAN_BIN")) GTEST_SKIP() << "HAMGAN_BIN unset (run through ctest)";
  NEED_NPZ_REFERENCE("dinov2_reference.py", "dinov2", "timm/pytorch-fid/torch-fidelity");
  auto dir = test::temp_dir("dinov2_cli");
  for (auto m : kModes) {
    SCOPED_TRACE(to_string(m));
    auto r = run_cli("fid " + R.dir + "/a " + R.dir + "/b --features dinov2:" + R.dir + "/dinov2.pt --dinov2_resize " +
                         to_string(m) + " --n 0 --device cpu",
                     dir);
    ASSERT_EQ(r.rc, 0) << r.err;
    const double want = R.ref.at("fd_" + to_string(m)).item<double>();
    EXPECT_LE(std::fabs(parse_fd(r.out) - want) / want, 1e-4) << r.out;
  }
  auto r = run_cli("fid " + R.dir + "/a " + R.dir + "/b --features dinov2:" + dir + "/absent.pt --n 0", dir);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(dir + "/absent.pt"), std::string::npos) << r.err;
}
