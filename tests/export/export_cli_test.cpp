// `hamgan export` on a trained run: the file's metadata and tensors, the
// generator it rebuilds, refusals in one line; `hamgan sample --float`.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "core/errors.h"
#include "core/safetensors.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/interop/generator_tensors.h"
#include "gan/sample/load_generator.h"
#include "gan/sample/noise.h"
#include "metrics/npz.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

// Nothing but one line: a refusal prints its error and no partial result.
bool one_line(const std::string& out) {
  return std::count(out.begin(), out.end(), '\n') == 1 && out.back() == '\n';
}

class ExportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
    dir_ = test::scratch_dir("export", "cli");
    int status = 0;
    const std::string out =
        test::run_hamgan("train --run_dir " + dir_ + "/run --steps 2" + test::tiny_cli_args(), &status);
    ASSERT_EQ(status, 0) << out;
  }
  std::string dir_;
};

TEST_F(ExportCli, TheFileHoldsTheSampledGeneratorAndSaysWhatItIs) {
  int status = 0;
  std::string out = test::run_hamgan("export " + dir_ + "/run --out " + dir_ + "/g.safetensors --standing_stats 2",
                                     &status);
  ASSERT_EQ(status, 0) << out;
  const SafetensorsFile f = read_safetensors(dir_ + "/g.safetensors");
  const std::string ckpt = resolve_checkpoint_path(dir_ + "/run");
  const ModelConfig mc = read_checkpoint_model_config(ckpt);
  EXPECT_EQ(f.metadata.at("format"), "hamgan");
  EXPECT_EQ(f.metadata.at("format_version"), "1");
  EXPECT_EQ(f.metadata.at("networks"), "G");
  EXPECT_EQ(f.metadata.at("model"), model_config_to_text(mc));
  EXPECT_EQ(f.metadata.at("weights"), "ema");
  EXPECT_EQ(f.metadata.at("step"), "2");
  EXPECT_EQ(f.metadata.at("source"), ckpt);
  EXPECT_NE(f.metadata.at("standing_stats").find("2 batches of 64, seed 0"), std::string::npos);
  // The tensors are the EMA generator as `sample` loads it (same standing statistics), bit for bit.
  Generator sampled = load_generator(ckpt, true, torch::kCPU, 2, 0);
  const NamedTensors expected = generator_tensors(sampled);
  ASSERT_EQ(f.tensors.size(), expected.size());
  std::map<std::string, torch::Tensor> got(f.tensors.begin(), f.tensors.end());
  for (const auto& [name, t] : expected) {
    ASSERT_TRUE(got.count(name)) << name;
    EXPECT_TRUE(torch::equal(got.at(name), t)) << name;
  }
  EXPECT_TRUE(got.count("G.context.sigma") && got.count("G.linear.u") && got.count("G.bn.running_var"));
  // Loaded into a fresh generator, it computes what the sampled one computes.
  Generator fresh(mc);
  load_generator_tensors(fresh, f.tensors, dir_ + "/g.safetensors");
  fresh->eval();
  torch::manual_seed(3);
  const torch::Tensor z = torch::randn({4, mc.z_dim});
  const torch::Tensor y = torch::arange(4, torch::kLong);
  torch::manual_seed(9);
  const torch::Tensor a = fresh->forward(z, y);
  torch::manual_seed(9);
  const torch::Tensor b = sampled->forward(z, y);
  EXPECT_TRUE(torch::equal(a, b));

  out = test::run_hamgan("export " + dir_ + "/run --with_d --weights raw --out " + dir_ + "/gd.safetensors", &status);
  ASSERT_EQ(status, 0) << out;
  const SafetensorsFile gd = read_safetensors(dir_ + "/gd.safetensors");
  EXPECT_EQ(gd.metadata.at("networks"), "G,D");
  EXPECT_EQ(gd.metadata.at("weights"), "raw");
  // The D.* tensors are the checkpoint's discriminator, as stored.
  Discriminator d(mc);
  CheckpointRefs refs;
  refs.d = d;
  load_checkpoint(ckpt, refs, /*restore_rng=*/false);
  const NamedTensors stored = discriminator_tensors(d);
  std::map<std::string, torch::Tensor> got_gd(gd.tensors.begin(), gd.tensors.end());
  EXPECT_EQ(got_gd.size(), stored.size() + expected.size());
  for (const auto& [name, t] : stored) {
    ASSERT_TRUE(got_gd.count(name)) << name;
    EXPECT_TRUE(torch::equal(got_gd.at(name), t)) << name;
  }
}

TEST_F(ExportCli, RefusalsAreOneLineAndWithoutAnEmaTheRawGeneratorIsTheDefault) {
  int status = 0;
  std::string out = test::run_hamgan("export " + dir_ + "/run --out " + dir_ + "/g.pt", &status);
  EXPECT_EQ(status, 1);
  EXPECT_EQ(out.rfind("hamgan: error: export: --out " + dir_ + "/g.pt must end in .safetensors", 0), 0u) << out;
  EXPECT_TRUE(one_line(out)) << out;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/g.pt"));

  ASSERT_EQ((test::run_hamgan("train --run_dir " + dir_ + "/no_ema --steps 2 --ema false" + test::tiny_cli_args(),
                              &status),
             status),
            0);
  out = test::run_hamgan("export " + dir_ + "/no_ema --weights ema --out " + dir_ + "/e.safetensors", &status);
  EXPECT_EQ(status, 1);
  EXPECT_NE(out.find("has no EMA generator (the run had ema = false); use --weights raw"), std::string::npos) << out;
  EXPECT_TRUE(one_line(out)) << out;

  out = test::run_hamgan("export " + dir_ + "/no_ema --standing_stats 0 --out " + dir_ + "/r.safetensors", &status);
  ASSERT_EQ(status, 0) << out;
  const SafetensorsFile f = read_safetensors(dir_ + "/r.safetensors");
  EXPECT_EQ(f.metadata.at("weights"), "raw");
  EXPECT_EQ(f.metadata.at("standing_stats"), "none: stored moving averages");
  // With no standing statistics the tensors are the checkpoint's raw G as stored.
  const std::string ckpt = resolve_checkpoint_path(dir_ + "/no_ema");
  Generator g(read_checkpoint_model_config(ckpt));
  CheckpointRefs refs;
  refs.g = g;
  load_checkpoint(ckpt, refs, /*restore_rng=*/false);
  const NamedTensors stored = generator_tensors(g);
  ASSERT_EQ(f.tensors.size(), stored.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(f.tensors[i].first, stored[i].first);
    EXPECT_TRUE(torch::equal(f.tensors[i].second, stored[i].second)) << stored[i].first;
  }
}

TEST_F(ExportCli, SampleFloatIsTheImagesBeforeQuantisationWithTheirInputs) {
  int status = 0;
  const std::string common = "sample --checkpoint " + dir_ + "/run --n 6 --seed 4 --quiet --out " + dir_;
  ASSERT_EQ((test::run_hamgan(common + "/f.npz --float", &status), status), 0);
  ASSERT_EQ((test::run_hamgan(common + "/q.npz", &status), status), 0);
  const NpzArrays f = read_npz(dir_ + "/f.npz"), q = read_npz(dir_ + "/q.npz");
  ASSERT_EQ(f.at("x").scalar_type(), torch::kFloat);
  EXPECT_EQ(f.at("z").sizes(), (std::vector<int64_t>{6, 8}));
  EXPECT_EQ(f.at("z").scalar_type(), torch::kFloat);
  EXPECT_EQ(f.at("y").scalar_type(), torch::kLong);
  EXPECT_EQ(f.at("x").sizes(), (std::vector<int64_t>{6, 1, 32, 32}));
  EXPECT_TRUE(torch::equal(f.at("y"), q.at("y")));
  const FixedNoise noise(6, 8, 10, /*seed=*/4);  // the inputs `sample --seed 4` draws
  EXPECT_TRUE(torch::equal(f.at("z"), noise.z()));
  EXPECT_TRUE(torch::equal(f.at("y"), noise.labels()));
  EXPECT_LE(f.at("x").abs().max().item<float>(), 1.0f);
  // The float images, quantised as an 8-bit file is ((x + 1) · 127.5, rounded half up), are that file's.
  const torch::Tensor quantised =
      torch::floor((f.at("x").to(torch::kDouble) + 1) * 127.5 + 0.5).clamp(0, 255).to(torch::kByte);
  EXPECT_TRUE(torch::equal(quantised, q.at("x")));
  const std::string out = test::run_hamgan(common + "/g.png --float", &status);
  EXPECT_EQ(status, 1);
  EXPECT_NE(out.find("--float writes the unquantised images into FILE.npz"), std::string::npos) << out;
}

}  // namespace
}  // namespace hamgan
