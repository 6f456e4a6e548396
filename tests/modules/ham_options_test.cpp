// The Hamburger's options (docs/ham.md, "Options"): the registered fields and their parsing,
// the checks that refuse bad values naming their key, and the solver settings per mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.h"
#include "modules/ham_block.h"
#include "tests/modules/module_test_util.h"

namespace hamgan {
namespace {

using test::ham_options;

TEST(HamBlock, StepsFollowMode) {
  auto o = ham_options(HamType::kNMF);
  o.train_steps = 3;
  o.eval_steps = 7;
  o.gradient = HamGradient::kBPTT;
  HamBlock block(o, 16);
  EXPECT_EQ(block->solver_options().steps, 3);
  EXPECT_EQ(block->solver_options().gradient, HamGradient::kBPTT);
  EXPECT_DOUBLE_EQ(block->solver_options().temperature, 1.0);
  block->eval();
  EXPECT_EQ(block->solver_options().steps, 7);
  EXPECT_DOUBLE_EQ(HamBlock(ham_options(HamType::kCD), 16)->temperature, 0.01);  // inv_t 100
}

TEST(HamBlock, RejectsBadOptionsAndInputs) {
  auto o = ham_options(HamType::kNMF);
  o.rank = 17;
  EXPECT_THROW(HamBlock(o, 16), ConfigError);
  o.rank = 0;
  o.beta = 0;
  EXPECT_THROW(HamBlock(o, 16), ConfigError);
  HamBlock block(ham_options(HamType::kNMF), 16);
  EXPECT_THROW(block->forward(torch::randn({1, 8, 4, 4})), ModelError);
  HamBlock conditional(ham_options(HamType::kNMF), 16, 3);
  EXPECT_THROW(conditional->forward(torch::randn({2, 16, 4, 4})), ModelError);  // labels missing
}

// Each bad option is refused by its one check, and the message names the key.
TEST(HamBlock, BadOptionNamesItsKey) {
  auto expect_key = [](const std::string& key, auto mutate) {
    auto o = ham_options(HamType::kNMF);
    mutate(o);
    try {
      HamBlock(o, 16);
      ADD_FAILURE() << "accepted bad " << key;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  expect_key("ham_train_steps", [](HamOptions& o) { o.train_steps = 0; });  // K >= 1 everywhere
  expect_key("ham_eval_steps", [](HamOptions& o) { o.eval_steps = 0; });
  expect_key("ham_rank", [](HamOptions& o) { o.rank = -1; });
  expect_key("ham_rank", [](HamOptions& o) { o.rank = 17; });
  expect_key("ham_temperature", [](HamOptions& o) { o.temperature = -1; });
  expect_key("ham_beta", [](HamOptions& o) { o.beta = 0; });
}

// The registry carries the Hamburger's fields; ContextOptions values parse into HamOptions.
TEST(HamBlock, OptionsComeFromTheRegisteredFields) {
  std::vector<std::string> keys;
  for (const auto& f : context_block_option_fields()) keys.push_back(f.key);
  for (const char* k : {"ham_type", "ham_train_steps", "ham_eval_steps", "ham_rank", "ham_gradient",
                        "ham_temperature", "ham_beta", "ham_init"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;

  ContextOptions o;
  o.name = "ham";
  const HamOptions defaults = parse_ham_options(o);  // every key at its registered default
  EXPECT_EQ(defaults.type, HamType::kNMF);
  EXPECT_EQ(defaults.train_steps, 6);
  EXPECT_EQ(defaults.eval_steps, 6);
  EXPECT_EQ(defaults.rank, 0);
  EXPECT_EQ(defaults.gradient, HamGradient::kOneStep);
  EXPECT_DOUBLE_EQ(defaults.temperature, 0.0);
  EXPECT_DOUBLE_EQ(defaults.beta, 0.01);
  EXPECT_EQ(defaults.init, HamInit::kRandom);

  o.values = {{"ham_type", "vq"}, {"ham_train_steps", "3"}, {"ham_eval_steps", "5"}, {"ham_rank", "4"},
              {"ham_gradient", "bptt"}, {"ham_temperature", "0.5"}, {"ham_beta", "0.25"}, {"ham_init", "online"}};
  const HamOptions h = parse_ham_options(o);
  EXPECT_EQ(h.type, HamType::kVQ);
  EXPECT_EQ(h.train_steps, 3);
  EXPECT_EQ(h.eval_steps, 5);
  EXPECT_EQ(h.rank, 4);
  EXPECT_EQ(h.gradient, HamGradient::kBPTT);
  EXPECT_DOUBLE_EQ(h.temperature, 0.5);
  EXPECT_DOUBLE_EQ(h.beta, 0.25);
  EXPECT_EQ(h.init, HamInit::kOnline);
  EXPECT_EQ(o.get_int("ham_rank"), 4);
  EXPECT_EQ(ham_context_options(h).values, o.values);  // and back

  auto block = make_context_block(o, 16);
  EXPECT_NE(block->describe().find("ham(vq, d=16, r=4, K=3/5, bptt, T=0.5, init=online)"), std::string::npos)
      << block->describe();
  o.values["ham_rank"] = "four";
  try {
    parse_ham_options(o);
    ADD_FAILURE() << "accepted ham_rank = four";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("ham_rank"), std::string::npos) << e.what();
  }
  EXPECT_THROW(o.value("no_such_option"), ConfigError);
}

}  // namespace
}  // namespace hamgan
