// Every input `hamgan import` refuses: one line naming the file or tensor and
// what was expected, and no run directory left behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/import/import_fixture.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

class ImportErrors : public test::ImportFixture {
 protected:
  // Writes `file` to NAME.safetensors, imports it (with `args`) and returns the output; the import must fail
  // in one line and leave neither the run directory nor a temporary beside it.
  std::string refused(const SafetensorsFile& file, const std::string& name, const std::string& args = "") {
    const std::string path = dir_ + "/" + name + ".safetensors";
    write_safetensors(path, file);
    return refused_path(path, name, args);
  }
  std::string refused_path(const std::string& path, const std::string& name, const std::string& args = "") {
    const std::string out_dir = dir_ + "/out_" + name;
    std::string out;
    EXPECT_EQ(run("import " + path + " --out " + out_dir + args, &out), 1) << out;
    EXPECT_TRUE(test::one_error_line(out)) << out;
    EXPECT_FALSE(fs::exists(out_dir)) << out;
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().find("out_" + name + "."), std::string::npos) << e.path();
    return out;
  }
  static SafetensorsFile without(SafetensorsFile f, const std::string& name) {
    for (auto it = f.tensors.begin(); it != f.tensors.end(); ++it)
      if (it->first == name) {
        f.tensors.erase(it);
        return f;
      }
    ADD_FAILURE() << "no tensor " << name;
    return f;
  }
};

// Another architecture: tensors of g_ch = 4 under a recorded model of g_ch = 8.
TEST_F(ImportErrors, ShapeOfAnotherArchitecture) {
  SafetensorsFile f = exported(dir_ + "/run");
  ModelConfig wider = model_config_from_text(f.metadata.at("model"));
  wider.g_ch = 8;
  f.metadata["model"] = model_config_to_text(wider);
  const std::string out = refused(f, "wider");
  EXPECT_NE(out.find("wider.safetensors"), std::string::npos) << out;
  EXPECT_NE(out.find("G.linear.weight"), std::string::npos) << out;  // the first tensor, whose shape differs
}

TEST_F(ImportErrors, MissingTensor) {
  const std::string out = refused(without(exported(dir_ + "/run"), "G.linear.u"), "missing");
  EXPECT_NE(out.find("G.linear.u"), std::string::npos) << out;
  EXPECT_NE(out.find("missing.safetensors"), std::string::npos) << out;
}

TEST_F(ImportErrors, ExtraTensor) {
  SafetensorsFile f = exported(dir_ + "/run");
  f.tensors.emplace_back("G.block9.weight", torch::zeros({3}));
  std::string out = refused(f, "extra");
  EXPECT_NE(out.find("G.block9.weight"), std::string::npos) << out;
  // A name under no network would be dropped by both loaders without a word.
  f.tensors.back().first = "ema.block1.weight";
  out = refused(f, "stray");
  EXPECT_NE(out.find("'ema.block1.weight' belongs to no network"), std::string::npos) << out;
}

TEST_F(ImportErrors, IntegerTensor) {
  SafetensorsFile f = exported(dir_ + "/run");
  for (auto& [name, t] : f.tensors)
    if (name == "G.linear.bias") t = t.to(torch::kInt64);
  const std::string out = refused(f, "integer");
  EXPECT_NE(out.find("G.linear.bias"), std::string::npos) << out;
  // Directories made for --out's parents go too.
  std::string nested;
  EXPECT_EQ(run("import " + dir_ + "/integer.safetensors --out " + dir_ + "/new_parent/deeper/run", &nested), 1) << nested;
  EXPECT_FALSE(fs::exists(dir_ + "/new_parent")) << nested;
}

// Without HamGAN's metadata the model is unknown: --config must give it (and then it imports).
TEST_F(ImportErrors, NoMetadataNeedsConfig) {
  SafetensorsFile f = exported(dir_ + "/run");
  f.metadata.clear();
  const std::string out = refused(f, "bare");
  EXPECT_NE(out.find("bare.safetensors has no HamGAN metadata"), std::string::npos) << out;
  EXPECT_NE(out.find("--config"), std::string::npos) << out;
  std::string ok;
  EXPECT_EQ(run("import " + dir_ + "/bare.safetensors --config " + dir_ + "/model.toml --out " + dir_ + "/bare_ok", &ok), 0)
      << ok;
}

// A later layout of the file is refused rather than read by guesswork.
TEST_F(ImportErrors, NewerFormatVersion) {
  SafetensorsFile f = exported(dir_ + "/run");
  f.metadata["format_version"] = "2";
  const std::string out = refused(f, "version2");
  EXPECT_NE(out.find("version2.safetensors has format_version \"2\"; this HamGAN reads format_version 1"),
            std::string::npos) << out;
}

// --config and the file disagree on the model: the first differing key, with both values.
TEST_F(ImportErrors, ConfigModelDiffersFromTheFiles) {
  const std::string out = refused_path(dir_ + "/G.safetensors", "differs", " --config " + dir_ + "/model.toml --z_dim 16");
  EXPECT_NE(out.find("z_dim = 16 in --config but 8 in " + dir_ + "/G.safetensors"), std::string::npos) << out;
}

TEST_F(ImportErrors, NotASafetensorsFile) {
  std::ofstream(dir_ + "/text.safetensors") << "this is not a safetensors file\n";
  const std::string out = refused_path(dir_ + "/text.safetensors", "text");
  EXPECT_NE(out.find("text.safetensors"), std::string::npos) << out;
}

// An existing run directory is never written into.
TEST_F(ImportErrors, ExistingNonEmptyRunDir) {
  fs::create_directories(dir_ + "/taken");
  std::ofstream(dir_ + "/taken/notes.txt") << "keep\n";
  std::string out;
  EXPECT_EQ(run("import " + dir_ + "/G.safetensors --out " + dir_ + "/taken", &out), 1) << out;
  EXPECT_TRUE(test::one_error_line(out)) << out;
  EXPECT_NE(out.find(dir_ + "/taken already exists and is not empty"), std::string::npos) << out;
  EXPECT_EQ(test::file_contents(dir_ + "/taken/notes.txt"), "keep\n");
  EXPECT_FALSE(fs::exists(dir_ + "/taken/checkpoints"));
  // An empty one is taken.
  fs::create_directories(dir_ + "/empty");
  EXPECT_EQ(run("import " + dir_ + "/G.safetensors --out " + dir_ + "/empty", &out), 0) << out;
  EXPECT_TRUE(fs::exists(dir_ + "/empty/checkpoints/latest"));
}

}  // namespace
}  // namespace hamgan
