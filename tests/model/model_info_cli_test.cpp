// `hamgan model-info` end to end: presets, TOML config keys, error exits.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gan/model/model_config.h"
#include "tests/common/test_util.h"

namespace {

struct Run {
  int status;
  std::string output;
};

Run run(const std::string& args) {
  Run r{0, ""};
  r.status = hamgan::test::run_command(std::string(hamgan::test::hamgan_bin()) + " " + args, &r.output);
  return r;
}

std::filesystem::path temp_dir() { return hamgan::test::scratch_dir("gan", "model_info"); }

TEST(ModelInfoCli, PresetPrintsReferenceTotals) {
  NEED_BIN();
  const auto r = run("model-info --preset sngan128");
  ASSERT_EQ(r.status, 0) << r.output;
  // 41,996,931 and 39,443,137: the SAGAN counts minus the attention blocks (81,921 and 20,481).
  EXPECT_NE(r.output.find("41,996,931"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("39,443,137"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1024x4x4"), std::string::npos) << r.output;
}

TEST(ModelInfoCli, ReadsFlatTomlKeys) {
  NEED_BIN();
  const auto file = temp_dir() / "small.toml";
  std::ofstream(file) << "resolution = 32\nimage_channels = 1\nnum_classes = 10\nz_dim = 64\n"
                         "g_ch = 4\nd_ch = 4\nblock_resolution = 16\ng_block = \"none\"\nd_block = \"none\"\n"
                         "ham_type = \"nmf\"\nham_rank = 0\ninit = \"orthogonal\"\n";
  const auto r = run("model-info --config " + file.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("32x4x4"), std::string::npos) << r.output;    // stem 8·g_ch
  EXPECT_NE(r.output.find("1x32x32"), std::string::npos) << r.output;   // grey image
  EXPECT_NE(r.output.find("init orthogonal"), std::string::npos) << r.output;
  // G linear: 64 → 4·4·32 with bias.
  EXPECT_NE(r.output.find("33,280"), std::string::npos) << r.output;
}

TEST(ModelInfoCli, BadInputExitsWithOneLineError) {
  NEED_BIN();
  const auto file = temp_dir() / "typo.toml";
  std::ofstream(file) << "resolutoin = 32\n";
  auto r = run("model-info --config " + file.string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("resolutoin"), std::string::npos) << r.output;
  r = run("model-info --resolution 32 --block_resolution 32");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("hamgan: error: model: block_resolution 32"), std::string::npos) << r.output;
  r = run("model-info --preset sagan128 --g_ch 32");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("cannot be combined"), std::string::npos) << r.output;
}

TEST(ModelInfoCli, ModelTextRoundTripsThroughConfig) {
  NEED_BIN();
  hamgan::ModelConfig c;
  c.resolution = 64;
  c.image_channels = 1;
  c.num_classes = 7;
  c.z_dim = 20;
  c.g_ch = 4;
  c.d_ch = 8;
  c.block_resolution = 16;
  c.g_block.name = "sa";
  c.init = hamgan::InitScheme::kN02;
  const auto file = temp_dir() / "roundtrip.toml";
  std::ofstream(file) << hamgan::model_config_to_text(c);
  const auto r = run("model-info --config " + file.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.substr(0, r.output.find('\n')),
            "model: resolution 64, image_channels 1, num_classes 7, z_dim 20, g_ch 4, d_ch 8, context at 16x16, "
            "init n02");
  EXPECT_NE(r.output.find("G (context: sa("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("D (context: none)"), std::string::npos) << r.output;
}

TEST(ModelInfoCli, HamKeysReachBothNetworksBlocks) {
  NEED_BIN();
  const auto file = temp_dir() / "ham.toml";
  std::ofstream(file) << "ham_type = \"cd\"\nham_rank = 3\nham_train_steps = 2\nham_eval_steps = 4\n"
                         "ham_gradient = \"bptt\"\nham_beta = 0.5\nham_init = \"online\"\n";
  const auto r = run("model-info --config " + file.string() +
                     " --resolution 32 --g_ch 8 --d_ch 8 --g_block ham --d_block ham");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto g = r.output.find("G (context: "), d = r.output.find("D (context: ");
  ASSERT_NE(g, std::string::npos) << r.output;
  ASSERT_NE(d, std::string::npos) << r.output;
  const auto g_line = r.output.substr(g, r.output.find('\n', g) - g);
  const auto d_line = r.output.substr(d, r.output.find('\n', d) - d);
  for (const auto* line : {&g_line, &d_line})
    for (const char* want : {"ham(cd", "r=3", "K=2/4", "bptt", "beta=0.5", "init=online"})
      EXPECT_NE(line->find(want), std::string::npos) << want << " in " << *line;
  EXPECT_NE(g_line.find("cbn"), std::string::npos) << g_line;  // G's block is class-conditional
  EXPECT_EQ(d_line.find("cbn"), std::string::npos) << d_line;
}

// An experiment file carries train keys too: model-info skips them (known keys) and describes the model.
TEST(ModelInfoCli, ExperimentFileDescribesItsModel) {
  NEED_BIN();
  const std::string file = std::string(HAMGAN_SOURCE_DIR) + "/experiments/imagenet128_ham.toml";
  const auto r = run("model-info --config " + file);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("model: resolution 128, image_channels 3, num_classes 1000"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("G (context: ham(nmf, d=256, r=32, K=6/6"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("D (context: ham(nmf, d=128, r=16, K=6/6"), std::string::npos) << r.output;
}

TEST(ModelInfoCli, KeyOfNoTableIsStillAnError) {
  NEED_BIN();
  const auto file = temp_dir() / "mixed.toml";
  std::ofstream(file) << "resolution = 32\nbatch_size = 8\nloss = \"hinge\"\nham_rnak = 2\n";
  const auto r = run("model-info --config " + file.string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("unknown key 'ham_rnak'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(file.string()), std::string::npos) << r.output;
}

TEST(ModelInfoCli, BadBlockOptionValueNamesTheKey) {
  NEED_BIN();
  const auto r = run("model-info --ham_train_steps 0");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("ham_train_steps"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("must be >= 1"), std::string::npos) << r.output;
}

}  // namespace
