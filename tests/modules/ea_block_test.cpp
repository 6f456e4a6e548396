// External attention block: identity at σ = 0, the double normalisation (softmax over n, L1
// over S), the folded forward against the literal layer order, the official order of operations
// in numpy (tests/python/ea_reference.py), parameter and MAC counts, option checks.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "core/errors.h"
#include "metrics/npz.h"
#include "modules/bench_modules.h"
#include "modules/ea_block.h"
#include "tests/common/test_util.h"
#include "tests/modules/module_test_util.h"

namespace hamgan {
namespace {

using test::seeded;

EaOptions ea_options(int64_t memory, int64_t heads, bool cbn = true) {
  EaOptions o;
  o.memory = memory;
  o.heads = heads;
  o.cbn = cbn;
  return o;
}

int64_t count_params(torch::nn::Module& m) {
  int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

// σ ≠ 0 and every other parameter moved off its init (the CBN tables start at γ = 1, β = 0).
void perturb(EaBlockImpl& b, double sigma, uint64_t seed) {
  torch::NoGradGuard ng;
  auto gen = seeded(seed);
  for (auto& p : b.parameters())
    if (p.dim() == 0) {
      p.fill_(sigma);
    } else {
      p.add_(0.2 * torch::randn(p.sizes(), gen).to(p.dtype()));
    }
}

TEST(EaBlock, IdentityAtSigmaZero) {
  for (int64_t classes : {0, 5})
    for (int64_t heads : {1, 2}) {
      EaBlock block(ea_options(8, heads), 16, classes);
      EXPECT_EQ(block->sigma.item<float>(), 0.0f);
      auto x = torch::randn({3, 16, 4, 5}, seeded(1));
      auto labels = torch::tensor({0, 4, 2}, torch::kLong);
      for (bool train : {true, false}) {
        block->train(train);
        auto y = block->forward(x, labels);
        EXPECT_EQ(y.sizes(), x.sizes());
        EXPECT_TRUE(torch::equal(y, x)) << "classes " << classes << " heads " << heads << " train " << train;
      }
    }
}

TEST(EaBlock, SoftmaxOverPositionsThenL1OverSlots) {
  for (int64_t heads : {1, 2}) {
    EaBlock block(ea_options(8, heads), 16, /*num_classes=*/heads == 2 ? 5 : 0);  // maps need no labels
    block->to(torch::kDouble);
    block->eval();
    auto x = torch::randn({2, 16, 4, 5}, seeded(2)).to(torch::kDouble);
    torch::NoGradGuard ng;
    const auto maps = block->attention_maps(x);
    ASSERT_EQ(maps.softmax.sizes(), (std::vector<int64_t>{2, heads, 8, 20}));
    // Each memory slot's softmax is a distribution over the n = 20 positions ...
    EXPECT_TRUE(torch::allclose(maps.softmax.sum(-1), torch::ones({2, heads, 8}, torch::kDouble), 0, 1e-12));
    // ... and after the L1 step each position's weights sum to 1 over the S slots, short by
    // 1e-9 / Σ_S (Σ_S ≈ S/n here, so within 1e-8).
    EXPECT_TRUE(torch::allclose(maps.normalized.sum(-2), torch::ones({2, heads, 20}, torch::kDouble), 0, 1e-8));
    const auto slot_sums = maps.softmax.sum(-2, true);
    EXPECT_TRUE(torch::allclose(maps.normalized, maps.softmax / (slot_sums + 1e-9), 0, 1e-15));
    // The order matters: the L1 step leaves the slots no longer summing to 1 over n.
    EXPECT_GT((maps.normalized.sum(-1) - 1).abs().max().item<double>(), 1e-3);
  }
}

TEST(EaBlock, HalfPrecisionLogitsAreNormalisedInFloat32) {
  auto logits = torch::randn({2, 8, 30}, seeded(3)).to(torch::kHalf);
  const auto a = ea_double_normalize(logits);
  EXPECT_EQ(a.scalar_type(), torch::kFloat);
  const auto expected = ea_double_normalize(logits.to(torch::kFloat));
  EXPECT_TRUE(torch::equal(a, expected));
  EXPECT_TRUE(torch::allclose(a.sum(-2), torch::ones({2, 30}), 0, 1e-6));
}

TEST(EaBlock, FastPathEqualsLayerOrder) {
  for (auto dtype : {torch::kFloat, torch::kDouble})
    for (int64_t classes : {0, 5})
      for (int64_t heads : {1, 2})
        for (bool train : {false, true}) {
          SCOPED_TRACE(std::string(dtype == torch::kFloat ? "float32" : "float64") + " classes " +
                       std::to_string(classes) + " heads " + std::to_string(heads) + (train ? " train" : " eval"));
          torch::manual_seed(4);
          EaBlock block(ea_options(8, heads), 16, classes);
          ASSERT_EQ(static_cast<bool>(block->bn), classes > 0);
          block->to(dtype);
          perturb(*block, 0.7, 5);
          block->train(train);
          // Training forwards advance SN's u and BN's moving statistics: both paths start from
          // the same buffers.
          std::vector<std::pair<torch::Tensor, torch::Tensor>> buffers;
          for (const auto& b : block->buffers()) buffers.emplace_back(b, b.clone());
          auto restore = [&] {
            torch::NoGradGuard ng;
            for (auto& [live, saved] : buffers) live.copy_(saved);
          };
          auto x = torch::randn({3, 16, 4, 6}, seeded(6)).to(dtype);
          auto labels = torch::tensor({3, 1, 4}, torch::kLong);
          auto fast = block->forward(x, labels);
          restore();
          auto reference = block->forward_reference(x, labels);
          const double tol = dtype == torch::kFloat ? 1e-5 : 1e-10;
          EXPECT_TRUE(torch::allclose(fast, reference, tol, tol))
              << (fast - reference).abs().max().item<double>();
          EXPECT_GT((fast - x).abs().max().item<double>(), 1e-2);  // the block contributes
        }
}

TEST(EaBlock, GradientsReachEveryMap) {
  for (int64_t heads : {1, 2}) {
    EaBlock block(ea_options(8, heads), 16, 5);
    perturb(*block, 0.5, 7);
    auto x = torch::randn({2, 16, 4, 4}, seeded(8)).requires_grad_(true);
    block->forward(x, torch::tensor({0, 3}, torch::kLong)).square().sum().backward();
    EXPECT_GT(x.grad().abs().sum().item<float>(), 0);
    for (const auto& p : block->named_parameters()) {
      ASSERT_TRUE(p.value().grad().defined()) << p.key();
      EXPECT_GT(p.value().grad().abs().sum().item<float>(), 0) << p.key();
    }
  }
}

// The official steps in numpy on the weights this block normalised (tests/python/ea_reference.py).
TEST(EaBlock, MatchesPythonOracleOfTheOfficialOrder) {
  if (test::run_command(HAMGAN_PYTHON " -c 'import numpy'") != 0) REFERENCE_MISSING("numpy not available");
  for (int64_t heads : {1, 2}) {
    torch::manual_seed(9);
    EaBlock block(ea_options(8, heads), 16);
    perturb(*block, 0.6, 10);
    block->eval();  // u frozen: normalized_weight() is what forward uses
    auto x = torch::randn({2, 16, 3, 5}, seeded(11));
    torch::NoGradGuard ng;
    const auto y = block->forward(x);
    NpzArrays arrays = {
        {"x", x},
        {"y", y.contiguous()},
        {"wq", block->query->normalized_weight().reshape({16, 16}).contiguous()},
        {"wk", block->memory_key->normalized_weight().reshape({8, 16 / heads}).contiguous()},
        {"wv", block->memory_value->normalized_weight().reshape({16 / heads, 8}).contiguous()},
        {"wo", block->out->normalized_weight().reshape({16, 16}).contiguous()},
        {"heads", torch::full({1}, heads, torch::kLong)},
        {"sigma", block->sigma.detach().reshape({1}).to(torch::kDouble)},
    };
    const auto dir = test::scratch_dir("modules", "ea_oracle_" + std::to_string(heads));
    write_npz(dir + "/ea.npz", arrays, false);
    std::string out;
    EXPECT_EQ(test::run_command(HAMGAN_PYTHON " " + test::python_script("ea_reference.py") + " " + dir, &out), 0) << out;
  }
}

TEST(EaBlock, ParameterCountMatchesFormula) {
  // 2C² (q, o) + 2·S·C/H (M_k, M_v shared by the heads) + 1 (σ); CBN adds 2·C·classes.
  auto formula = [](int64_t c, int64_t s, int64_t h) { return 2 * c * c + 2 * s * c / h + 1; };
  EXPECT_EQ(count_params(*EaBlock(ea_options(64, 1), 256)), 163841);
  EXPECT_EQ(formula(256, 64, 1), 163841);
  EXPECT_EQ(count_params(*EaBlock(ea_options(64, 2), 256)), formula(256, 64, 2));
  EXPECT_EQ(count_params(*EaBlock(ea_options(32, 4), 128)), formula(128, 32, 4));
  EXPECT_EQ(count_params(*EaBlock(ea_options(64, 1), 256, 1000)), formula(256, 64, 1) + 2 * 256 * 1000);
  EXPECT_EQ(count_params(*EaBlock(ea_options(64, 1, /*cbn=*/false), 256, 1000)), formula(256, 64, 1));
}

TEST(EaBlock, MacsMatchWhatForwardRuns) {
  const std::vector<int64_t> shape = {2, 256, 32, 32};
  const int64_t b = 2, c = 256, n = 1024, s = 64;
  // One head, folded: 2·S·C² once, 2·n·S·C per sample (33.6M per sample + 8.4M at the G slot).
  EXPECT_EQ(module_macs(ea_context_options(ea_options(s, 1)), shape), b * 2 * n * s * c + 2 * s * c * c);
  EXPECT_EQ(module_macs(ea_context_options(ea_options(s, 1)), {1, 256, 32, 32}), 33554432 + 8388608);
  // Heads: literal, 2nC(C + S) per sample whatever H (167.8M per sample at the G slot).
  EXPECT_EQ(module_macs(ea_context_options(ea_options(s, 2)), shape), b * 2 * n * c * (c + s));
  EXPECT_EQ(module_macs(ea_context_options(ea_options(s, 4)), {1, 256, 32, 32}), 167772160);
}

TEST(EaBlock, DescribeAndOptionDefaults) {
  ContextOptions o;
  o.name = "ea";
  const EaOptions d = parse_ea_options(o);  // every key at its registered default
  EXPECT_EQ(d.memory, 64);
  EXPECT_EQ(d.heads, 1);
  EXPECT_TRUE(d.cbn);
  std::vector<std::string> keys;
  for (const auto& f : context_block_option_fields()) keys.push_back(f.key);
  for (const char* k : {"ea_memory", "ea_heads", "ea_cbn"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;

  o.num_classes = 10;
  EXPECT_EQ(make_context_block(o, 256)->describe(), "ea(C=256, S=64, H=1, cbn)");
  o.values = {{"ea_memory", "16"}, {"ea_heads", "4"}, {"ea_cbn", "false"}};
  EXPECT_EQ(make_context_block(o, 64)->describe(), "ea(C=64, S=16, H=4)");
  EXPECT_EQ(ea_context_options(parse_ea_options(o), 10).values, o.values);  // and back
  o.num_classes = 0;
  o.values = {};
  EXPECT_EQ(make_context_block(o, 32)->describe(), "ea(C=32, S=64, H=1)");  // D: no CBN
}

// Each bad option is refused naming its key.
TEST(EaBlock, BadOptionsNameTheirKey) {
  auto expect_key = [](const std::string& key, const std::string& value, int64_t channels = 16) {
    ContextOptions o;
    o.name = "ea";
    o.values[key] = value;
    try {
      make_context_block(o, channels);
      ADD_FAILURE() << "accepted " << key << " = " << value;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  expect_key("ea_memory", "0");
  expect_key("ea_memory", "many");
  expect_key("ea_heads", "0");
  expect_key("ea_cbn", "maybe");
  // Heads must divide the channels: a ModelError naming both.
  EXPECT_THROW(EaBlock(ea_options(8, 3), 16), ModelError);
  try {
    EaBlock(ea_options(8, 3), 16);
  } catch (const ModelError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ea_heads 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("channels 16"), std::string::npos) << msg;
  }
  EXPECT_THROW(EaBlock(ea_options(0, 1), 16), ConfigError);
  EaBlock block(ea_options(8, 1), 16);
  EXPECT_THROW(block->forward(torch::randn({1, 8, 4, 4})), ModelError);
  EaBlock conditional(ea_options(8, 1), 16, 3);
  EXPECT_THROW(conditional->forward(torch::randn({2, 16, 4, 4})), ModelError);  // labels missing
}

}  // namespace
}  // namespace hamgan
