// Standing statistics (gan/sample/standing_stats.h): the recomputed BN statistics are
// the batch statistics training-mode BN would use, nothing else in G changes,
// and a snapshot puts every buffer back.
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>

#include <map>

#include "gan/model/generator.h"
#include "gan/sample/sampler.h"
#include "gan/sample/standing_stats.h"
#include "tests/common/gan_test_util.h"
#include "metrics/image_source.h"
#include "modules/conditional_bn.h"

namespace hamgan {
namespace {

std::map<std::string, torch::Tensor> buffers_of(torch::nn::Module& m) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& kv : m.named_buffers(true)) out[kv.key()] = kv.value().clone();
  return out;
}

bool is_bn_statistic(const std::string& name) {
  return name.find("running_mean") != std::string::npos || name.find("running_var") != std::string::npos;
}

// G with moved BN statistics and SN vectors, as after some training.
Generator trained_a_little(const ModelConfig& c) {
  torch::manual_seed(3);
  Generator g(c);
  torch::NoGradGuard no_grad;
  for (int i = 0; i < 3; ++i) g->forward(torch::randn({6, c.z_dim}), torch::randint(c.num_classes, {6}, torch::kLong));
  return g;
}

class StandingStats : public ::testing::TestWithParam<std::string> {};

// One pass over batch B: eval-mode G must then give exactly what G with only its
// BN layers in training mode gives on B, since every layer sees the same input
// and normalises with B's statistics either way.
TEST_P(StandingStats, OnePassEqualsTrainingModeBatchNormOnThatBatch) {
  const ModelConfig c = test::buildable_config(32, GetParam());
  Generator g = trained_a_little(c);
  const int64_t n = 20;
  const uint64_t seed = 11;
  at::Generator gen = at::detail::createCPUGenerator(seed);
  const torch::Tensor z = sample_z(n, c.z_dim, 0.0, gen);
  const torch::Tensor y = balanced_labels(0, n, c.num_classes);

  torch::NoGradGuard no_grad;
  g->eval();
  for (const auto& m : g->modules(false))
    if (auto* bn = m->as<ConditionalBatchNormImpl>()) bn->train(true);
  const auto before = buffers_of(*g);
  torch::manual_seed(seed);  // the blocks' eval-time random bases, as accumulate_standing_stats seeds them
  torch::Tensor expected = g->forward(z, y);
  // Put back what that forward moved, so the two runs start from the same G.
  for (auto& kv : g->named_buffers(true)) kv.value().copy_(before.at(kv.key()));

  accumulate_standing_stats(g, /*batches=*/1, n, seed);
  EXPECT_FALSE(g->is_training());
  for (const auto& m : g->modules(false)) EXPECT_FALSE(m->is_training());
  torch::manual_seed(seed);
  torch::Tensor got = g->forward(z, y);
  EXPECT_TRUE(torch::allclose(got, expected, 1e-5, 1e-5)) << (got - expected).abs().max().item<double>();

  // Only BN statistics changed; spectral-norm vectors and everything else are as they were.
  const auto after = buffers_of(*g);
  int changed = 0;
  for (const auto& [name, t] : after) {
    if (is_bn_statistic(name)) {
      changed += !torch::equal(t, before.at(name));
    } else {
      EXPECT_TRUE(torch::equal(t, before.at(name))) << name;
    }
  }
  EXPECT_GT(changed, 0);
}

INSTANTIATE_TEST_SUITE_P(Blocks, StandingStats, ::testing::Values("none", "ham", "sa"));

// Two passes of n must give the plain mean of the two passes' statistics. G's
// first BN layer sees a function of z alone, so its mean over two equal passes
// equals its mean over one pass of all 2n images (same z stream, same labels).
TEST(StandingStatsMean, TwoPassesAverageLikeOnePassOverBoth) {
  const ModelConfig c = test::small_config(32, "none");
  const int64_t n = 10;
  const uint64_t seed = 5;
  Generator two = trained_a_little(c), one = trained_a_little(c);
  accumulate_standing_stats(two, 2, n, seed);
  accumulate_standing_stats(one, 1, 2 * n, seed);
  std::string first;  // registration order: the stem's SN vector, then block 0's first BN
  for (const auto& kv : two->named_buffers(true))
    if (kv.key().find("running_mean") != std::string::npos) {
      first = kv.key();
      break;
    }
  ASSERT_FALSE(first.empty());
  const torch::Tensor a = two->named_buffers(true)[first], b = one->named_buffers(true)[first];
  EXPECT_TRUE(torch::allclose(a, b, 1e-5, 1e-6)) << first << " " << (a - b).abs().max().item<double>();
  // A third pass would shift it: the statistics really come from the passes.
  Generator three = trained_a_little(c);
  accumulate_standing_stats(three, 3, n, seed);
  EXPECT_FALSE(torch::allclose(three->named_buffers(true)[first], b, 1e-5, 1e-6));
}

TEST(StandingStatsSnapshot, RestoresEveryBufferAndZeroBatchesChangesNothing) {
  const ModelConfig c = test::small_config(32, "ham");
  Generator g = trained_a_little(c);
  const auto before = buffers_of(*g);
  {
    BufferSnapshot keep(*g);
    accumulate_standing_stats(g, 3, 8, 1);
    bool any = false;
    for (const auto& kv : g->named_buffers(true)) any |= !torch::equal(kv.value(), before.at(kv.key()));
    EXPECT_TRUE(any);
  }
  for (const auto& kv : g->named_buffers(true)) EXPECT_TRUE(torch::equal(kv.value(), before.at(kv.key()))) << kv.key();
  accumulate_standing_stats(g, 0, 8, 1);
  for (const auto& kv : g->named_buffers(true)) EXPECT_TRUE(torch::equal(kv.value(), before.at(kv.key()))) << kv.key();
  EXPECT_THROW(accumulate_standing_stats(g, -1, 8, 1), ConfigError);
  EXPECT_THROW(accumulate_standing_stats(g, 1, 0, 1), ConfigError);
}

}  // namespace
}  // namespace hamgan
