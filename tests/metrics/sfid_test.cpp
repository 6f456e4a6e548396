// sFID: spatial features of both SfidLayer choices against pytorch-fid's own
// network with forward hooks on the same planted weights, the distance against
// an exact low-rank reference, and mu_s/sigma_s in the .npz statistics files.
// References: tests/python/sfid_reference.py.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "core/errors.h"
#include "metrics/features.h"
#include "metrics/frechet.h"
#include "metrics/npz.h"
#include "metrics/stats.h"
#include "tests/metrics/helpers.h"

using namespace hamgan;

namespace {

using test::max_abs;

std::unique_ptr<FeatureExtractor> extractor(const std::string& dir, SfidLayer layer, ResizeMode mode,
                                            bool sfid = true) {
  FeatureOptions o;
  o.spec = "inception:" + dir + "/weights.pth";
  o.resize = mode;
  o.sfid = sfid;
  o.sfid_layer = layer;
  o.device = "cpu";
  return make_feature_extractor(o);
}

FeatureStats spatial_stats(FeatureExtractor& fx, const torch::Tensor& images) {
  RunningStats stats;
  for (int64_t lo = 0; lo < images.size(0); lo += 16) stats.add(fx.extract(images.slice(0, lo, lo + 16)).spatial);
  return stats.finish();
}

}  // namespace

TEST(Sfid, SpatialFeaturesEqualPytorchFidHooks) {
  NEED_NPZ_REFERENCE("sfid_reference.py", "sfid", "pytorch-fid/torch-fidelity");
  // pytorch: pytorch-fid's own preprocessing; tf: the TF graph's resize, as ADM's evaluator runs it.
  const std::pair<ResizeMode, std::string> modes[] = {{ResizeMode::legacy_pytorch, "pytorch"},
                                                      {ResizeMode::legacy_tensorflow, "tf"}};
  for (SfidLayer layer : {SfidLayer::adm, SfidLayer::mixed_6e}) {
    for (const auto& [mode, name] : modes) {
      const std::string key = to_string(layer) + "_" + name;
      SCOPED_TRACE(key);
      auto fx = extractor(R.dir, layer, mode);
      EXPECT_NE(fx->describe().find("sFID layer " + to_string(layer)), std::string::npos) << fx->describe();
      auto out = fx->extract(R.ref["images"]);
      ASSERT_EQ(out.spatial.sizes(), (std::vector<int64_t>{4, kSfidDim}));
      EXPECT_EQ(out.spatial.scalar_type(), torch::kFloat32);
      EXPECT_GT(R.ref[key].abs().max().item<double>(), 1e-1);  // not a dead layer
      EXPECT_LE(max_abs(out.spatial, R.ref[key]), 1e-4);
      EXPECT_EQ(out.features.size(1), 2048);
    }
  }
  // The two layers are different activations, so a swapped hook would show.
  EXPECT_GT(max_abs(R.ref["adm_tf"], R.ref["mixed_6e_tf"]), 1e-1);
}

TEST(Sfid, OffByDefaultAndPoolFeaturesUnchanged) {
  NEED_NPZ_REFERENCE("sfid_reference.py", "sfid", "pytorch-fid/torch-fidelity");
  auto images = R.ref["images"].slice(0, 0, 2);
  auto plain = extractor(R.dir, SfidLayer::adm, ResizeMode::legacy_tensorflow, false)->extract(images);
  EXPECT_FALSE(plain.spatial.defined());
  auto with = extractor(R.dir, SfidLayer::adm, ResizeMode::legacy_tensorflow)->extract(images);
  EXPECT_TRUE(torch::equal(plain.features, with.features));
  EXPECT_TRUE(torch::equal(plain.logits, with.logits));
}

TEST(Sfid, DistanceEqualsReference) {
  NEED_NPZ_REFERENCE("sfid_reference.py", "sfid", "pytorch-fid/torch-fidelity");
  // ADM's layer end to end from our own features; mixed_6e (whose features the first test
  // checks) from the reference's, to halve the ~1 s/image forward passes.
  for (SfidLayer layer : {SfidLayer::adm, SfidLayer::mixed_6e}) {
    const std::string name = to_string(layer);
    SCOPED_TRACE(name);
    FeatureStats a, b;
    if (layer == SfidLayer::adm) {
      auto fx = extractor(R.dir, layer, ResizeMode::legacy_tensorflow);
      a = spatial_stats(*fx, R.ref["a"]);
      b = spatial_stats(*fx, R.ref["b"]);
    } else {
      RunningStats ra, rb;
      ra.add(R.ref[name + "_a"]);
      rb.add(R.ref[name + "_b"]);
      a = ra.finish();
      b = rb.finish();
    }
    const double ours = frechet_distance(a.mu, a.sigma, b.mu, b.sigma).distance;
    const double ref = R.ref["sfid_" + name].item<double>();
    EXPECT_GT(ref, 1.0);  // the two sets differ
    // Features agree within 1e-4 and both distances are exact to ~1e-6 relative (the script's
    // HAMGAN_SFID_SCIPY=1 run shows pytorch-fid's scipy sqrtm within that too).
    EXPECT_NEAR(ours, ref, 1e-4 * ref);
  }
}

TEST(Sfid, StatsRoundTripAndNumpyReadsThem) {
  NEED_NPZ_REFERENCE("sfid_reference.py", "sfid", "pytorch-fid/torch-fidelity");
  RunningStats pool, spatial;
  pool.add(torch::randn({5, 3}, torch::kFloat64));
  spatial.add(R.ref["adm_a"]);
  FeatureStats s = pool.finish();
  const FeatureStats sp = spatial.finish();
  s.mu_s = sp.mu;
  s.sigma_s = sp.sigma;
  const auto dir = test::temp_dir("sfid_stats");
  for (bool compressed : {true, false}) {
    const std::string path = dir + (compressed ? "/deflated.npz" : "/stored.npz");
    save_stats(path, s, compressed);
    const FeatureStats back = load_stats(path);
    EXPECT_TRUE(torch::equal(back.mu, s.mu));
    EXPECT_TRUE(torch::equal(back.mu_s, s.mu_s));
    EXPECT_TRUE(torch::equal(back.sigma_s, s.sigma_s));
    RUN_REFERENCE("sfid_reference.py", R.dir + " verify " + path);
  }
  // Without sFID statistics the file has no such keys.
  s.mu_s = s.sigma_s = torch::Tensor();
  save_stats(dir + "/pool_only.npz", s);
  EXPECT_EQ(read_npz(dir + "/pool_only.npz").count("mu_s"), 0u);
  EXPECT_FALSE(load_stats(dir + "/pool_only.npz").mu_s.defined());
}

TEST(Sfid, OtherToolsFilesLoad) {
  NEED_NPZ_REFERENCE("sfid_reference.py", "sfid", "pytorch-fid/torch-fidelity");
  const FeatureStats plain = load_stats(R.dir + "/plain.npz");  // pytorch-fid style: mu, sigma only
  EXPECT_EQ(plain.mu.size(0), 3);
  EXPECT_FALSE(plain.mu_s.defined());
  EXPECT_FALSE(plain.sigma_s.defined());
  const FeatureStats adm = load_stats(R.dir + "/adm32.npz");  // float32 mu_s/sigma_s
  ASSERT_TRUE(adm.mu_s.defined());
  EXPECT_EQ(adm.mu_s.scalar_type(), torch::kFloat64);
  EXPECT_EQ(adm.sigma_s.sizes(), (std::vector<int64_t>{kSfidDim, kSfidDim}));
  const auto raw = read_npz(R.dir + "/adm32.npz");
  EXPECT_TRUE(torch::equal(adm.sigma_s, raw.at("sigma_s").to(torch::kFloat64)));
  // Half an sFID pair is a broken file.
  const auto dir = test::temp_dir("sfid_half");
  write_npz(dir + "/half.npz", {{"mu", raw.at("mu")}, {"sigma", raw.at("sigma")}, {"mu_s", raw.at("mu_s")}}, false);
  EXPECT_THROW(load_stats(dir + "/half.npz"), DataError);
}

TEST(Sfid, TorchScriptInceptionRefusesInOneLine) {
  const auto dir = test::temp_dir("sfid_torchscript");
  std::ofstream(dir + "/inception-2015-12-05.pt") << "not read";
  FeatureOptions o;
  o.spec = "inception:" + dir + "/inception-2015-12-05.pt";
  o.sfid = true;
  o.device = "cpu";
  try {
    make_feature_extractor(o);
    FAIL() << "TorchScript Inception accepted --sfid";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos);
    EXPECT_NE(m.find(".pth"), std::string::npos) << m;
  }
}
