// Parameter counts of the 128×128 reference models against layer-shape
// arithmetic (docs/models.md, "Parameter counts"). Counts exclude BN running
// statistics and SN u vectors, which are buffers.
//   SAGAN (sa):   G 42,078,852  D 39,463,618
//   YLG (ylg):    same as SAGAN: masks are constants, the convs are SA's
//   HamGAN (ham): G 42,640,004  D 39,475,906
//   none:         G 41,996,931  D 39,443,137
#include <gtest/gtest.h>

#include "gan/model/discriminator.h"
#include "gan/model/generator.h"
#include "gan/model/model_info.h"
#include "tests/common/gan_test_util.h"

namespace hamgan {
namespace {

constexpr int64_t kClasses = 1000, kZ = 128;

int64_t conv(int64_t in, int64_t out, int64_t k) { return k * k * in * out + out; }  // weight + bias
int64_t cbn(int64_t c) { return 2 * kClasses * c; }                                   // γ and β tables
int64_t gblock(int64_t in, int64_t out) {
  return cbn(in) + conv(in, out, 3) + cbn(out) + conv(out, out, 3) + conv(in, out, 1);
}
int64_t dblock(int64_t in, int64_t out, bool conv_shortcut) {
  return conv(in, out, 3) + conv(out, out, 3) + (conv_shortcut ? conv(in, out, 1) : 0);
}

// TF-GAN's plan written out by hand (docs/models.md, "Sources"), not taken from model_plan.
int64_t generator_without_block() {
  int64_t n = kZ * 4 * 4 * 1024 + 4 * 4 * 1024;  // SN-linear with bias
  for (auto [in, out] : {std::pair<int64_t, int64_t>{1024, 1024}, {1024, 512}, {512, 256}, {256, 128}, {128, 64}})
    n += gblock(in, out);
  return n + 2 * 64 + conv(64, 3, 3);  // final BN γ/β, last conv
}
int64_t discriminator_without_block() {
  int64_t n = dblock(3, 64, true) + dblock(64, 128, true) + dblock(128, 256, true) + dblock(256, 512, true) +
              dblock(512, 1024, true) + dblock(1024, 1024, false);
  return n + (1024 + 1) + kClasses * 1024;  // linear head, class embedding
}
// θ, φ: C→C/8, g: C→C/2, o: C/2→C, no biases; plus σ.
int64_t attention(int64_t c) { return 2 * c * (c / 8) + 2 * c * (c / 2) + 1; }
// Lower and upper bread C→C→C (S = 1, D = C), no biases; CBN in G only; σ.
int64_t hamburger(int64_t c, bool with_cbn) { return 2 * c * c + (with_cbn ? cbn(c) : 0) + 1; }

struct Expected {
  std::string preset;
  int64_t g, d;
};

void PrintTo(const Expected& e, std::ostream* os) { *os << e.preset << " G " << e.g << " D " << e.d; }

class ReferenceCount : public ::testing::TestWithParam<Expected> {};

TEST_P(ReferenceCount, MatchesLayerArithmetic) {
  const auto& e = GetParam();
  const ModelConfig c = model_preset(e.preset);
  const ModelInfo info = model_info(c);
  EXPECT_EQ(info.generator.total, e.g) << e.preset;
  EXPECT_EQ(info.discriminator.total, e.d) << e.preset;
  // The parts add up to the total and the context part is the block alone.
  for (const auto* n : {&info.generator, &info.discriminator}) {
    int64_t sum = 0;
    for (const auto& p : n->parts) sum += p.params;
    EXPECT_EQ(sum, n->total);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Presets, ReferenceCount,
    ::testing::Values(Expected{"sngan128", generator_without_block(), discriminator_without_block()},
                      Expected{"sagan128", generator_without_block() + attention(256),
                               discriminator_without_block() + attention(128)},
                      Expected{"ylg128", generator_without_block() + attention(256),
                               discriminator_without_block() + attention(128)},
                      Expected{"hamgan128", generator_without_block() + hamburger(256, true),
                               discriminator_without_block() + hamburger(128, false)}),
    [](const auto& info) { return info.param.preset; });

TEST(ReferenceCount, ArithmeticReproducesTheSheet) {
  // The reference numbers (docs/models.md, "Sources") follow from the same layer list.
  EXPECT_EQ(generator_without_block() + attention(256), 42078852);
  EXPECT_EQ(discriminator_without_block() + attention(128), 39463618);
  EXPECT_EQ(generator_without_block() + hamburger(256, true), 42640004);
  EXPECT_EQ(discriminator_without_block() + hamburger(128, false), 39475906);
}

TEST(ReferenceCount, BuffersAreNotParameters) {
  // u vectors and BN running statistics exist as buffers and stay out of the count.
  ModelConfig c = test::small_config(32, "none");
  Generator g(c);
  int64_t u = 0, running = 0;
  for (const auto& b : g->named_buffers()) {
    if (b.key().size() >= 2 && b.key().substr(b.key().size() - 2) == ".u") u += b.value().numel();
    if (b.key().find("running_") != std::string::npos) running += b.value().numel();
  }
  EXPECT_GT(u, 0);
  EXPECT_GT(running, 0);
  int64_t params = 0;
  for (const auto& p : g->parameters()) params += p.numel();
  EXPECT_EQ(count_parameters(*g), params);
}

}  // namespace
}  // namespace hamgan
