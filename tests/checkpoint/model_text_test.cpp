// The checkpoint's model text: written as the hand-written flat TOML, read back field
// by field, with unknown keys and bad values naming the key.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.h"
#include "gan/checkpoint/checkpoint.h"
#include "modules/ham_block.h"

namespace hamgan {
namespace {

// The checkpoint's model text is the flat TOML of model_config_fields(): compared with text written
// by hand, not with the writer's own output.
const char* const kModelText =
    "resolution = 64\n"
    "image_channels = 3\n"
    "num_classes = 10\n"
    "z_dim = 128\n"
    "g_ch = 24\n"
    "d_ch = 64\n"
    "block_resolution = 16\n"
    "g_block = \"ham\"\n"
    "d_block = \"sa\"\n"
    "init = \"orthogonal\"\n"
    "resample_conv = \"separate\"\n"
    "ham_type = \"cd\"\n"
    "ham_train_steps = 6\n"
    "ham_eval_steps = 3\n"
    "ham_rank = 0\n"
    "ham_gradient = \"one-step\"\n"
    "ham_temperature = 0.125\n"
    "ham_beta = 0.01\n"
    "ham_init = \"random\"\n";

// The hand-written text, then every other block's option at its registered default (strings quoted),
// so adding a block needs no edit here.
std::string expected_model_text() {
  std::string text = kModelText;
  for (const FieldSpec& f : context_block_option_fields()) {
    if (f.key.rfind("ham_", 0) == 0) continue;
    const bool quoted = f.type == FieldType::kString || f.type == FieldType::kChoice;
    text += f.key + " = " + (quoted ? "\"" + f.default_value + "\"" : f.default_value) + "\n";
  }
  return text;
}

TEST(Checkpoint, ModelConfigTextIsTheHandWrittenText) {
  ModelConfig c;
  c.resolution = 64;
  c.g_ch = 24;
  c.block_resolution = 16;
  c.g_block.name = "ham";
  c.d_block.name = "sa";
  c.init = InitScheme::kOrthogonal;
  c.block_options["ham_type"] = "cd";
  c.block_options["ham_eval_steps"] = "3";
  c.block_options["ham_temperature"] = "0.125";
  EXPECT_EQ(model_config_to_text(c), expected_model_text());
}

TEST(Checkpoint, ModelConfigTextReadsBackFieldByField) {
  const ModelConfig r = model_config_from_text(std::string("# a comment\n\n") + kModelText);
  EXPECT_EQ(r.resolution, 64);
  EXPECT_EQ(r.image_channels, 3);
  EXPECT_EQ(r.num_classes, 10);
  EXPECT_EQ(r.z_dim, 128);
  EXPECT_EQ(r.g_ch, 24);
  EXPECT_EQ(r.d_ch, 64);
  EXPECT_EQ(r.block_resolution, 16);
  EXPECT_EQ(r.g_block.name, "ham");
  EXPECT_EQ(r.d_block.name, "sa");
  EXPECT_EQ(r.init, InitScheme::kOrthogonal);
  // Block options reach both networks' blocks, typed.
  for (const auto& ctx : {r.g_context(), r.d_context()}) {
    const HamOptions h = parse_ham_options(ctx);
    EXPECT_EQ(h.type, HamType::kCD);
    EXPECT_EQ(h.train_steps, 6);
    EXPECT_EQ(h.eval_steps, 3);
    EXPECT_EQ(h.rank, 0);
    EXPECT_EQ(h.gradient, HamGradient::kOneStep);
    EXPECT_DOUBLE_EQ(h.temperature, 0.125);
    EXPECT_DOUBLE_EQ(h.beta, 0.01);
    EXPECT_EQ(h.init, HamInit::kRandom);
  }
  // Keys left out keep their defaults; unknown keys and bad values name the key.
  const ModelConfig partial = model_config_from_text("z_dim = 7\n");
  EXPECT_EQ(partial.z_dim, 7);
  EXPECT_EQ(partial.resolution, ModelConfig{}.resolution);
  for (const char* bad : {"z_dimm = 7\n", "z_dim = seven\n", "ham_rank = -1\n", "g_block = \"attention\"\n"}) {
    try {
      model_config_from_text(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const ConfigError& e) {
      const std::string key = std::string(bad).substr(0, std::string(bad).find(' '));
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace hamgan
