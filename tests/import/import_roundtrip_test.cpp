// `hamgan import` end to end: the run it makes samples, scores and trains like
// the run the generator came from.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "gan/checkpoint/checkpoint.h"
#include "metrics/npz.h"
#include "tests/common/python_reference.h"
#include "tests/import/import_fixture.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

class ImportRoundTrip : public test::ImportFixture {
 protected:
  // `hamgan sample` of `run` as uint8 images and labels (fixed seed, two standing batches).
  static NpzArrays samples(const std::string& run, const std::string& out_file) {
    std::string out;
    const int rc = ImportFixture::run("sample --checkpoint " + run + " --n 20 --seed 3 --standing_stats 2 --device cpu "
                                      "--quiet --out " + out_file, &out);
    EXPECT_EQ(rc, 0) << out;
    return rc == 0 ? read_npz(out_file) : NpzArrays{};
  }
};

// Sampling the imported run gives the original run's images, bit for bit: the
// weights, BN statistics and u vectors all came across.
TEST_F(ImportRoundTrip, ImportedRunSamplesTheOriginalImages) {
  std::string out;
  ASSERT_EQ(run("import " + dir_ + "/G.safetensors --out " + dir_ + "/imported", &out), 0) << out;
  EXPECT_NE(out.find("(weights ema, step 2, source " + dir_ + "/run)"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(dir_ + "/imported/checkpoints/step_0000000.pt.done"));
  EXPECT_EQ(test::file_contents(dir_ + "/imported/checkpoints/latest"), "step_0000000.pt\n");
  // The run's model is the one the file records.
  EXPECT_EQ(model_config_to_text(read_checkpoint_model_config(dir_ + "/imported/checkpoints/step_0000000.pt")),
            exported(dir_ + "/run").metadata.at("model"));
  const NpzArrays a = samples(dir_ + "/run", dir_ + "/original.npz");
  const NpzArrays b = samples(dir_ + "/imported", dir_ + "/imported.npz");
  ASSERT_TRUE(a.count("x") && b.count("x"));
  EXPECT_TRUE(torch::equal(a.at("x"), b.at("x")));
  EXPECT_TRUE(torch::equal(a.at("y"), b.at("y")));
  EXPECT_GT(a.at("x").to(torch::kFloat).std().item<double>(), 1.0);  // real images, not a constant that would match anyway
}

// Through `hamgan export`, standing statistics included: the run imported from an export made with
// sample's standing batches and seed samples, on its stored statistics, the original's images; with
// --with_d the run's D comes along too.
TEST_F(ImportRoundTrip, ExportThenImportKeepsTheStandingStatistics) {
  std::string out;
  ASSERT_EQ(run("export " + dir_ + "/run --standing_stats 2 --seed 3 --with_d --device cpu --out " + dir_ +
                    "/exported.safetensors", &out), 0) << out;
  ASSERT_EQ(run("import " + dir_ + "/exported.safetensors --out " + dir_ + "/from_export", &out), 0) << out;
  EXPECT_NE(out.find("G and G_ema and D"), std::string::npos) << out;
  std::string rc_out;
  ASSERT_EQ(ImportFixture::run("sample --checkpoint " + dir_ + "/from_export --n 20 --seed 3 --standing_stats 0 "
                               "--device cpu --quiet --out " + dir_ + "/stored.npz", &rc_out), 0) << rc_out;
  EXPECT_TRUE(torch::equal(samples(dir_ + "/run", dir_ + "/standing.npz").at("x"), read_npz(dir_ + "/stored.npz").at("x")));
  // The training's own moving averages give other images: the statistics that came across are the export's.
  ASSERT_EQ(ImportFixture::run("sample --checkpoint " + dir_ + "/run --n 20 --seed 3 --standing_stats 0 --device cpu "
                               "--quiet --out " + dir_ + "/moving.npz", &rc_out), 0) << rc_out;
  EXPECT_FALSE(torch::equal(read_npz(dir_ + "/moving.npz").at("x"), read_npz(dir_ + "/stored.npz").at("x")));
}

// A file the safetensors package wrote (its own order and alignment) imports to the same images.
TEST_F(ImportRoundTrip, FileWrittenByTheSafetensorsPackageImportsAlike) {
  RUN_REFERENCE("import_resave.py", dir_ + "/G.safetensors " + dir_ + "/G_py.safetensors");
  std::string out;
  ASSERT_EQ(run("import " + dir_ + "/G_py.safetensors --config " + dir_ + "/model.toml --out " + dir_ + "/from_py", &out), 0)
      << out;
  EXPECT_TRUE(torch::equal(samples(dir_ + "/run", dir_ + "/o.npz").at("x"), samples(dir_ + "/from_py", dir_ + "/p.npz").at("x")));
}

// D.* tensors in the file become the run's D; without them D is a fresh one.
TEST_F(ImportRoundTrip, DiscriminatorComesAlongWhenTheFileHasIt) {
  const std::string original_ckpt = resolve_checkpoint_path(dir_ + "/run");
  const ModelConfig model = read_checkpoint_model_config(original_ckpt);
  auto discriminator_of = [&](const std::string& ckpt) {
    Discriminator d(model);
    CheckpointRefs refs;
    refs.d = d;
    load_checkpoint(ckpt, refs, /*restore_rng=*/false);
    return d;
  };
  const Discriminator original = discriminator_of(original_ckpt);
  SafetensorsFile file = exported(dir_ + "/run");
  for (auto& t : discriminator_tensors(original)) file.tensors.push_back(t);
  file.metadata["networks"] = "G,D";
  write_safetensors(dir_ + "/GD.safetensors", file);
  std::string out;
  ASSERT_EQ(run("import " + dir_ + "/GD.safetensors --out " + dir_ + "/with_d", &out), 0) << out;
  ASSERT_EQ(run("import " + dir_ + "/G.safetensors --out " + dir_ + "/fresh_d", &out), 0) << out;
  const Discriminator with_d = discriminator_of(dir_ + "/with_d/checkpoints/step_0000000.pt");
  const Discriminator fresh_d = discriminator_of(dir_ + "/fresh_d/checkpoints/step_0000000.pt");
  for (const auto& p : original->named_parameters()) {
    EXPECT_TRUE(torch::equal(with_d->named_parameters()[p.key()], p.value())) << p.key();
    if (p.value().numel() >= 16) {
      EXPECT_FALSE(torch::equal(fresh_d->named_parameters()[p.key()], p.value())) << p.key();
    }
  }
}

// `hamgan fid` reads the imported run as a generator, with the original's FID.
TEST_F(ImportRoundTrip, FidOfTheImportedRunIsTheOriginals) {
  std::string out, original, imported;
  ASSERT_EQ(run("import " + dir_ + "/G.safetensors --out " + dir_ + "/for_fid", &out), 0) << out;
  ASSERT_EQ(run("fid " + dir_ + "/run " + dir_ + "/data --n 20" + features(), &original), 0) << original;
  ASSERT_EQ(run("fid " + dir_ + "/for_fid " + dir_ + "/data --n 20" + features(), &imported), 0) << imported;
  ASSERT_TRUE(std::isfinite(test::fid_in(imported))) << imported;
  EXPECT_EQ(test::fid_in(imported), test::fid_in(original)) << original << imported;
}

// `hamgan train --resume` continues the imported run as a fine-tune: from step 0
// and from the file's weights (moved off the original's, so they are told apart).
TEST_F(ImportRoundTrip, TrainResumeStartsFromTheImportedWeights) {
  SafetensorsFile file = exported(dir_ + "/run");
  const Generator original = load_generator(resolve_checkpoint_path(dir_ + "/run"), true, torch::kCPU, 0, 0);
  torch::manual_seed(7);
  std::map<std::string, torch::Tensor> moved;
  for (auto& [name, t] : file.tensors)
    if (original->named_parameters().contains(name.substr(2))) moved[name] = t = t + 0.05 * torch::randn_like(t);
  write_safetensors(dir_ + "/G_moved.safetensors", file);
  std::string out;
  ASSERT_EQ(run("import " + dir_ + "/G_moved.safetensors --config " + dir_ + "/model.toml --out " + dir_ + "/tune", &out),
            0) << out;
  EXPECT_NE(out.find("hamgan train --config " + dir_ + "/tune/config.toml --resume"), std::string::npos) << out;
  ASSERT_EQ(run("train --config " + dir_ + "/tune/config.toml --resume --steps 2 --quiet", &out), 0) << out;
  EXPECT_NE(out.find("resumed from step 0"), std::string::npos) << out;
  const std::string last = resolve_checkpoint_path(dir_ + "/tune");
  EXPECT_EQ(fs::path(last).filename().string(), "step_0000002.pt");
  // Two Adam steps of lr 1e-4 move a weight by about 2e-4; the file's weights are 0.05·N(0,1) off the original's.
  const Generator tuned = load_generator(last, /*use_ema=*/false, torch::kCPU, 0, 0);
  ASSERT_FALSE(moved.empty());
  for (const auto& p : tuned->named_parameters()) {
    const torch::Tensor& start = moved.at("G." + p.key());
    EXPECT_LT((p.value() - start).abs().max().item<double>(), 1e-3) << p.key();
    if (start.numel() >= 16) {
      EXPECT_GT((original->named_parameters()[p.key()] - start).abs().max().item<double>(), 0.02) << p.key();
    }
  }
}

}  // namespace
}  // namespace hamgan
