// The context-block registry and option parsers (style.md lesson 5).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>

#include "core/errors.h"
#include "modules/context_block.h"

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
  const auto names = context_block_names();
  for (const char* n : {"none", "sa", "ylg", "ham"}) EXPECT_TRUE(contains(names, n)) << n;
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
    for (const char* n : {"none", "sa", "ylg", "ham"}) EXPECT_NE(msg.find(n), std::string::npos) << msg;
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
