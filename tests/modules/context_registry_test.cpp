// The context-block registry (blocks chosen by name, never by if-chains), block options and option parsers.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>

#include "cli/field_options.h"
#include "core/errors.h"
#include "gan/model/model_config.h"
#include "modules/context_block.h"
#include "modules/ham_types.h"

using namespace hamgan;

namespace {
bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class ScaleBlock : public ContextBlockImpl {
 public:
  explicit ScaleBlock(double f) : f_(f) {}
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor&) override { return x * f_; }
  std::string describe() const override { return "scale"; }

 private:
  double f_;
};
}  // namespace

TEST(ContextRegistry, ListsBuiltInBlocks) {
  // The built-ins, exactly and in registration order; other tests of this binary add "test_*" blocks.
  std::vector<std::string> built_in;
  for (const auto& n : context_block_names())
    if (n.rfind("test_", 0) != 0) built_in.push_back(n);
  EXPECT_EQ(built_in, (std::vector<std::string>{"none", "sa", "ylg", "ham", "sa_dense", "ea"}));
}

TEST(ContextRegistry, UnknownNameThrowsListingKnownOnes) {
  ContextOptions o;
  o.name = "transformer";
  try {
    make_context_block(o, 64);
    FAIL() << "no exception";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("transformer"), std::string::npos);
    for (const char* n : {"none", "sa", "ylg", "ham", "sa_dense", "ea"}) EXPECT_NE(msg.find(n), std::string::npos) << msg;
  }
}

TEST(ContextRegistry, RegistersNewBlocksAndRejectsDuplicates) {
  register_context_block("test_scale", [](const ContextOptions&, int64_t) { return std::make_shared<ScaleBlock>(2.0); });
  EXPECT_TRUE(contains(context_block_names(), "test_scale"));
  ContextOptions o;
  o.name = "test_scale";
  auto x = torch::randn({1, 2, 2, 2});
  EXPECT_TRUE(torch::equal(make_context_block(o, 2)->forward(x), x * 2.0));
  EXPECT_THROW(register_context_block("test_scale", [](const ContextOptions&, int64_t) {
                 return std::make_shared<ScaleBlock>(1.0);
               }),
               ModelError);
  EXPECT_THROW(register_context_block("sa", [](const ContextOptions&, int64_t) { return std::make_shared<ScaleBlock>(1.0); }),
               ModelError);
}

TEST(ContextRegistry, MacCountIsRegisteredWithTheBlock) {
  const auto scale = [](const ContextOptions&, int64_t) { return std::make_shared<ScaleBlock>(2.0); };
  register_context_block("test_scale_macs", scale, {},
                         [](const ContextOptions&, const std::vector<int64_t>& shape) { return shape.at(0) * 7; });
  ContextOptions o;
  o.name = "test_scale_macs";
  EXPECT_EQ(module_macs(o, {3, 8, 4, 4}), 21);
  o.name = "test_scale_uncounted";
  EXPECT_EQ(module_macs(o, {3, 8, 4, 4}), -1);  // unknown name: not counted
  register_context_block("test_scale_uncounted", scale);
  EXPECT_EQ(module_macs(o, {3, 8, 4, 4}), -1);  // registered without a count
}

TEST(ContextRegistry, BlockOptionsAreRegisteredWithTheBlock) {
  // A block's option is read through ContextOptions with its registered default.
  FieldSpec factor = float_field("test_scale_factor", "Scale of the test block", above(0));
  factor.default_value = "3.0";
  register_context_block(
      "test_scale_opt",
      [](const ContextOptions& o, int64_t) { return std::make_shared<ScaleBlock>(o.get_float("test_scale_factor")); },
      {factor});
  std::vector<std::string> keys;
  for (const auto& f : context_block_option_fields()) keys.push_back(f.key);
  EXPECT_TRUE(contains(keys, "test_scale_factor"));
  ContextOptions o;
  o.name = "test_scale_opt";
  auto x = torch::randn({1, 2, 2, 2});
  EXPECT_TRUE(torch::equal(make_context_block(o, 2)->forward(x), x * 3.0));
  o.values["test_scale_factor"] = "0.5";
  EXPECT_TRUE(torch::equal(make_context_block(o, 2)->forward(x), x * 0.5));
  o.values["test_scale_factor"] = "-1";
  EXPECT_THROW(make_context_block(o, 2), ConfigError);

  // With no other edit the option is a model key: in the table, the text, validation and the CLI.
  const auto fields = model_config_fields();
  EXPECT_TRUE(std::any_of(fields.begin(), fields.end(), [](const auto& f) { return f.spec.key == "test_scale_factor"; }));
  ModelConfig c;
  EXPECT_NE(model_config_to_text(c).find("\ntest_scale_factor = 3.0\n"), std::string::npos) << model_config_to_text(c);
  c = model_config_from_text("g_block = \"test_scale_opt\"\ntest_scale_factor = 0.25\n");
  EXPECT_NO_THROW(c.validate());
  EXPECT_EQ(c.g_block.name, "test_scale_opt");
  EXPECT_NE(model_config_to_text(c).find("\ntest_scale_factor = 0.25\n"), std::string::npos);
  EXPECT_TRUE(torch::equal(make_context_block(c.g_context(), 2)->forward(x), x * 0.25));
  c.block_options["test_scale_factor"] = "0";
  try {
    c.validate();
    ADD_FAILURE() << "accepted test_scale_factor = 0";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("model: test_scale_factor must be > 0"), std::string::npos) << e.what();
  }
  ModelConfig parsed;
  CLI::App app;
  cli::add_field_options(&app, model_config_fields(), parsed, "Model");
  app.parse(std::vector<std::string>{"4", "--test_scale_factor", "test_scale_opt", "--d_block"});  // read back to front
  EXPECT_EQ(parsed.d_block.name, "test_scale_opt");
  EXPECT_EQ(parsed.block_options.at("test_scale_factor"), "4.0");
  CLI::App strict;
  cli::add_field_options(&strict, model_config_fields(), parsed, "Model");
  EXPECT_THROW(strict.parse(std::vector<std::string>{"-1", "--test_scale_factor"}), CLI::ValidationError);
  // Keys are flat config keys, so two blocks cannot share one; a default must pass its own check.
  EXPECT_THROW(register_context_block("test_scale_dup", [](const ContextOptions&, int64_t) {
                 return std::make_shared<ScaleBlock>(1.0);
               }, {factor}),
               ModelError);
  FieldSpec bad = float_field("test_scale_bad", "", above(0));
  bad.default_value = "0.0";
  EXPECT_THROW(register_context_block("test_scale_bad", [](const ContextOptions&, int64_t) {
                 return std::make_shared<ScaleBlock>(1.0);
               }, {bad}),
               ModelError);
}

TEST(ContextRegistry, RejectsImpossibleChannelCounts) {
  ContextOptions o;
  o.name = "sa";
  EXPECT_THROW(make_context_block(o, 12), ModelError);  // C/8 not whole
  o.name = "ylg";
  EXPECT_THROW(make_context_block(o, 32), ModelError);  // C/64 < 1
  o.name = "none";
  EXPECT_THROW(make_context_block(o, 0), ModelError);
}

TEST(ContextRegistry, OptionParsersRoundTrip) {
  for (auto t : {HamType::kNMF, HamType::kVQ, HamType::kCD}) EXPECT_EQ(parse_ham_type(to_string(t)), t);
  for (auto g : {HamGradient::kOneStep, HamGradient::kBPTT}) EXPECT_EQ(parse_ham_gradient(to_string(g)), g);
  for (auto i : {HamInit::kRandom, HamInit::kOnline}) EXPECT_EQ(parse_ham_init(to_string(i)), i);
  EXPECT_EQ(to_string(HamType::kNMF), "nmf");
  EXPECT_EQ(to_string(HamGradient::kOneStep), "one-step");
  EXPECT_THROW(parse_ham_type("NMF2D"), ConfigError);
  EXPECT_THROW(parse_ham_gradient("full"), ConfigError);
  EXPECT_THROW(parse_ham_init(""), ConfigError);
}
