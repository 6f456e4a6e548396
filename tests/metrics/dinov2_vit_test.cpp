// FD_DINOv2 without TorchScript: HamGAN's LibTorch ViT (metrics/dinov2_vit.h) on the
// safetensors file scripts/convert_dinov2.py writes, against timm's features on the
// same planted weights, against the TorchScript path on the same weights (features
// and `hamgan fid`'s FD_DINOv2), and its load errors. References:
// tests/python/dinov2_reference.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <regex>

#include "core/safetensors.h"
#include "metrics/dinov2_features.h"
#include "tests/metrics/dinov2_test_util.h"
#include "tests/metrics/helpers.h"

using namespace hamgan;

namespace {

const DinoResize kVitModes[] = {DinoResize::pil_bicubic, DinoResize::torch_bicubic, DinoResize::legacy_tensorflow};

double fd_of(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("FD_DINOv2: ([-+0-9.eE]+)"))) return NAN;
  return std::stod(m[1].str());
}

// A copy of the reference file with `edit` applied to its tensors or metadata.
std::string edited_copy(const std::string& from, const std::string& to,
                        const std::function<void(SafetensorsFile&)>& edit) {
  SafetensorsFile f = read_safetensors(from);
  edit(f);
  write_safetensors(to, f);
  return to;
}

}  // namespace

TEST(Dinov2Vit, FeaturesEqualTimmsAndTheTorchScriptPathOnTheSameWeights) {
  NEED_NPZ_REFERENCE("dinov2_reference.py", "dinov2", "timm/pytorch-fid/torch-fidelity");
  for (auto m : kVitModes) {
    auto vit = make_dinov2_extractor(R.dir + "/dinov2.safetensors", m, torch::kCPU);
    auto traced = make_dinov2_extractor(R.dir + "/dinov2.pt", m, torch::kCPU);
    EXPECT_EQ(vit->dim(), traced->dim());
    EXPECT_NE(vit->describe().find("ViT weights " + R.dir + "/dinov2.safetensors"), std::string::npos)
        << vit->describe();
    EXPECT_NE(traced->describe().find("legacy"), std::string::npos) << traced->describe();
    for (std::string tag : {"rgb", "gray"}) {
      SCOPED_TRACE(to_string(m) + " " + tag);
      const auto features = vit->extract(R.ref.at(tag)).features;
      EXPECT_LE(test::max_abs(features, R.ref.at("feat_" + to_string(m) + "_" + tag)), 1e-4);  // timm's
      EXPECT_LE(test::max_abs(features, traced->extract(R.ref.at(tag)).features), 1e-5);
      EXPECT_GT(features.abs().max().item<double>(), 0.1);  // features that can differ
    }
  }
}

TEST(Dinov2Vit, FidFromSafetensorsEqualsTheTorchScriptFileAndTheReference) {
  if (!std::getenv("HAMGAN_BIN")) GTEST_SKIP() << "HAMGAN_BIN unset (run through ctest)";
  NEED_NPZ_REFERENCE("dinov2_reference.py", "dinov2", "timm/pytorch-fid/torch-fidelity");
  auto dir = test::temp_dir("dinov2_vit_cli");
  for (auto m : kVitModes) {
    SCOPED_TRACE(to_string(m));
    double fd[2];
    for (int i = 0; i < 2; ++i) {
      auto r = test::run_cli("fid " + R.dir + "/a " + R.dir + "/b --features dinov2:" + R.dir +
                                 (i ? "/dinov2.pt" : "/dinov2.safetensors") + " --dinov2_resize " + to_string(m) +
                                 " --n 0 --device cpu",
                             dir);
      ASSERT_EQ(r.rc, 0) << r.err;
      fd[i] = fd_of(r.out);
    }
    const double want = R.ref.at("fd_" + to_string(m)).item<double>();
    EXPECT_LE(std::fabs(fd[0] - want) / want, 1e-4) << fd[0] << " vs " << want;
    EXPECT_LE(std::fabs(fd[0] - fd[1]) / want, 1e-6) << fd[0] << " vs TorchScript " << fd[1];
  }
}

TEST(Dinov2Vit, ADamagedFileIsOneLineNamingTheFileAndTheTensor) {
  NEED_NPZ_REFERENCE("dinov2_reference.py", "dinov2", "timm/pytorch-fid/torch-fidelity");
  auto dir = test::temp_dir("dinov2_vit_errors");
  const std::string good = R.dir + "/dinov2.safetensors";
  auto drop = [](const std::string& name) {
    return [name](SafetensorsFile& f) {
      f.tensors.erase(std::remove_if(f.tensors.begin(), f.tensors.end(), [&](const auto& t) { return t.first == name; }),
                      f.tensors.end());
    };
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {edited_copy(good, dir + "/missing.safetensors", drop("blocks.1.ls2.gamma")), "blocks.1.ls2.gamma"},
      {edited_copy(good, dir + "/nan.safetensors",
                   [](SafetensorsFile& f) {
                     for (auto& [name, t] : f.tensors)
                       if (name == "pos_embed") t = t.clone().index_fill_(2, torch::tensor({3}), NAN);
                   }),
       "pos_embed"},
      {edited_copy(good, dir + "/extra.safetensors",
                   [](SafetensorsFile& f) { f.tensors.emplace_back("head.weight", torch::zeros({10, 48})); }),
       "head.weight"},
      {edited_copy(good, dir + "/shape.safetensors",
                   [](SafetensorsFile& f) {
                     for (auto& [name, t] : f.tensors)
                       if (name == "blocks.0.attn.qkv.bias") t = torch::zeros({100});
                   }),
       "blocks.0.attn.qkv.bias"},
      {edited_copy(good, dir + "/format.safetensors", [](SafetensorsFile& f) { f.metadata["format"] = "timm"; }),
       "hamgan-dinov2"},
      {edited_copy(good, dir + "/size.safetensors", [](SafetensorsFile& f) { f.metadata["image_size"] = "518"; }),
       "224"},
      {dir + "/absent.safetensors", "not found"},
  };
  for (const auto& [path, word] : cases) {
    const std::string msg = test::dinov2_load_error(path);
    EXPECT_FALSE(msg.empty()) << path;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(word), std::string::npos) << msg;
    EXPECT_NE(msg.find("convert_dinov2.py"), std::string::npos) << msg;
  }
}
