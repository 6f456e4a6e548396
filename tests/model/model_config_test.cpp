// ModelConfig validation and the channel plans (model_plan.h).
#include <gtest/gtest.h>

#include "core/errors.h"
#include "gan/model/model_config.h"
#include "gan/model/model_plan.h"
#include "tests/common/gan_test_util.h"

namespace hamgan {
namespace {

std::vector<int64_t> outs(const std::vector<BlockPlan>& plan) {
  std::vector<int64_t> v;
  for (const auto& b : plan) v.push_back(b.out_ch);
  return v;
}

TEST(ModelPlan, Reference128MatchesTheSheet) {
  const ModelConfig c = model_preset("sngan128");
  // TF-GAN's G (docs/models.md, "Sources"): stem 4×4×1024, blocks 1024→1024→512→256→128→64.
  EXPECT_EQ(generator_stem_channels(c), 1024);
  EXPECT_EQ(outs(generator_plan(c)), (std::vector<int64_t>{1024, 512, 256, 128, 64}));
  // TF-GAN's D: 64, 128, 256, 512, 1024, 1024 (the last without downsampling).
  const auto d = discriminator_plan(c);
  EXPECT_EQ(outs(d), (std::vector<int64_t>{64, 128, 256, 512, 1024, 1024}));
  EXPECT_FALSE(d.back().resample);
  EXPECT_EQ(d.back().out_side, 4);
  // The context block follows G block3 (32×32×256) and D block2 (32×32×128).
  EXPECT_EQ(context_index(generator_plan(c), 32), 2);
  EXPECT_EQ(context_index(d, 32), 1);
}

TEST(ModelPlan, SmallerResolutionsDropBlocksFromTheDeepEnd) {
  ModelConfig c = test::small_config(64, "none", 1);
  EXPECT_EQ(generator_stem_channels(c), 16);
  EXPECT_EQ(outs(generator_plan(c)), (std::vector<int64_t>{8, 4, 2, 1}));
  EXPECT_EQ(outs(discriminator_plan(c)), (std::vector<int64_t>{1, 2, 4, 8, 8}));
  c.resolution = 32;
  EXPECT_EQ(generator_stem_channels(c), 8);
  EXPECT_EQ(outs(generator_plan(c)), (std::vector<int64_t>{4, 2, 1}));
  EXPECT_EQ(outs(discriminator_plan(c)), (std::vector<int64_t>{1, 2, 4, 4}));
}

TEST(ModelConfig, DefaultBlockPosition) {
  ModelConfig c;
  EXPECT_NO_THROW(c.validate());
  EXPECT_EQ(c.context_side(), 16);  // 32×32 images: D has no 32×32 feature map
  c.resolution = 64;
  EXPECT_EQ(c.context_side(), 32);
  c.resolution = 128;
  EXPECT_EQ(c.context_side(), 32);
}

TEST(ModelConfig, RejectsBadValues) {
  auto bad = [](auto mutate) {
    ModelConfig c;
    mutate(c);
    EXPECT_THROW(c.validate(), ConfigError);
  };
  bad([](ModelConfig& c) { c.resolution = 48; });
  bad([](ModelConfig& c) { c.g_ch = 0; });
  bad([](ModelConfig& c) { c.num_classes = 0; });
  bad([](ModelConfig& c) { c.z_dim = -1; });
  bad([](ModelConfig& c) { c.block_resolution = 32; });  // at resolution 32
  bad([](ModelConfig& c) { c.block_resolution = 4; });   // G has no block output at 4×4
  bad([](ModelConfig& c) { c.resolution = 128, c.block_resolution = 128; });
  bad([](ModelConfig& c) { c.g_block.name = "attention"; });
  bad([](ModelConfig& c) { c.block_options["ham_rank"] = "-1"; });
  ModelConfig ok;
  ok.resolution = 128;
  for (int64_t side : {8, 16, 32, 64}) {
    ok.block_resolution = side;
    EXPECT_NO_THROW(ok.validate()) << side;
  }
}

TEST(ModelConfig, ErrorNamesTheKey) {
  ModelConfig c;
  c.block_resolution = 32;
  try {
    c.validate();
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("block_resolution"), std::string::npos) << e.what();
  }
}

// One check per key, and the message names it (block options included).
TEST(ModelConfig, EveryBadValueNamesItsKey) {
  auto expect_key = [](const std::string& key, auto mutate) {
    ModelConfig c;
    mutate(c);
    try {
      c.validate();
      ADD_FAILURE() << "accepted bad " << key;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("model: " + key), std::string::npos) << e.what();
    }
  };
  expect_key("resolution", [](ModelConfig& c) { c.resolution = 48; });
  expect_key("image_channels", [](ModelConfig& c) { c.image_channels = 0; });
  expect_key("num_classes", [](ModelConfig& c) { c.num_classes = 0; });
  expect_key("z_dim", [](ModelConfig& c) { c.z_dim = 0; });
  expect_key("g_ch", [](ModelConfig& c) { c.g_ch = -2; });
  expect_key("d_ch", [](ModelConfig& c) { c.d_ch = 0; });
  expect_key("block_resolution", [](ModelConfig& c) { c.block_resolution = 12; });
  expect_key("g_block", [](ModelConfig& c) { c.g_block.name = "attention"; });
  expect_key("d_block", [](ModelConfig& c) { c.d_block.name = ""; });
  expect_key("ham_type", [](ModelConfig& c) { c.block_options["ham_type"] = "pca"; });
  expect_key("ham_train_steps", [](ModelConfig& c) { c.block_options["ham_train_steps"] = "0"; });
  expect_key("ham_eval_steps", [](ModelConfig& c) { c.block_options["ham_eval_steps"] = "1.5"; });
  expect_key("ham_rank", [](ModelConfig& c) { c.block_options["ham_rank"] = "-1"; });
  expect_key("ham_gradient", [](ModelConfig& c) { c.block_options["ham_gradient"] = "full"; });
  expect_key("ham_temperature", [](ModelConfig& c) { c.block_options["ham_temperature"] = "-0.1"; });
  expect_key("ham_beta", [](ModelConfig& c) { c.block_options["ham_beta"] = "0"; });
  expect_key("ham_init", [](ModelConfig& c) { c.block_options["ham_init"] = "zeros"; });
  expect_key("ham_rnak", [](ModelConfig& c) { c.block_options["ham_rnak"] = "2"; });
}

TEST(ModelConfig, InitSchemeNamesRoundTrip) {
  for (auto s : {InitScheme::kXavier, InitScheme::kOrthogonal, InitScheme::kN02})
    EXPECT_EQ(parse_init_scheme(to_string(s)), s);
  EXPECT_THROW(parse_init_scheme("glorot"), ConfigError);
  EXPECT_THROW(model_preset("biggan128"), ConfigError);
}

}  // namespace
}  // namespace hamgan
