// Metrics never run in the training's math mode: a `tf32` run sets TF32
// process-wide, and feature extraction (and the generator feeding it) must see
// it off, with deterministic cuDNN, and leave the run's flags as they were. The
// flags are global on CPU builds too, so a probe extractor observes them here.
#include <gtest/gtest.h>

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>

#include "gan/step/precision.h"
#include "metrics/exact_arithmetic.h"
#include "metrics/fid.h"
#include "metrics/image_source.h"

namespace hamgan {
namespace {

// Records, at every call, whether the process's arithmetic is exact; its features are the pixel means.
class ProbeExtractor : public FeatureExtractor {
 public:
  FeatureBatch compute(const torch::Tensor& images) override {
    auto& ctx = at::globalContext();
    calls++;
    if (ctx.allowTF32CuBLAS() || ctx.allowTF32CuDNN() || !ctx.deterministicCuDNN() || ctx.benchmarkCuDNN() ||
        !arithmetic_is_exact())
      inexact_calls++;
    const torch::Tensor f = images.to(torch::kFloat32).flatten(1);
    return {torch::stack({f.mean(1), f.std(1)}, 1), {}, {}};
  }
  int64_t dim() const override { return 2; }
  std::string describe() const override { return "probe"; }
  torch::Device device() const override { return torch::kCPU; }
  int calls = 0, inexact_calls = 0;
};

// What a tf32 run sets for its whole life, undone at the end of each test.
class Tf32Run : public ::testing::Test {
 protected:
  void SetUp() override { apply_math_mode(resolve_precision(PrecisionChoice::kTf32, false, torch::kCPU)); }
  void TearDown() override {
    apply_math_mode(resolve_precision(PrecisionChoice::kFp32, false, torch::kCPU));
    at::globalContext().setBenchmarkCuDNN(false);
  }
};

std::unique_ptr<ImageSource> random_images(int64_t n) {
  auto images = torch::randint(0, 256, {n, 3, 8, 8}, torch::kUInt8);
  return make_callable_source([images](int64_t count, int64_t offset) { return images.slice(0, offset, offset + count); },
                              n, "random images");
}

TEST_F(Tf32Run, ExtractionSeesTf32OffAndTheRunKeepsItsFlags) {
  auto& ctx = at::globalContext();
  ASSERT_TRUE(ctx.allowTF32CuBLAS());  // the run's mode is set, or the test proves nothing
  ASSERT_TRUE(ctx.allowTF32CuDNN());
  ASSERT_TRUE(ctx.benchmarkCuDNN());
  ProbeExtractor probe;
  auto source = random_images(12);
  extract_features(*source, probe, 5);
  EXPECT_EQ(probe.calls, 3);
  EXPECT_EQ(probe.inexact_calls, 0);
  probe.extract(torch::zeros({1, 3, 8, 8}, torch::kUInt8));  // a direct call is guarded too
  EXPECT_EQ(probe.inexact_calls, 0);
  EXPECT_TRUE(ctx.allowTF32CuBLAS());  // restored for the training that goes on
  EXPECT_TRUE(ctx.allowTF32CuDNN());
  EXPECT_TRUE(ctx.benchmarkCuDNN());
  EXPECT_FALSE(arithmetic_is_exact());
}

TEST_F(Tf32Run, AutocastIsOffInsideAndBackAfter) {
  at::autocast::set_autocast_enabled(c10::DeviceType::CPU, true);  // as a bf16 step's scope sets it
  {
    ExactArithmeticScope exact;
    EXPECT_FALSE(at::autocast::is_autocast_enabled(c10::DeviceType::CPU));
    EXPECT_EQ(at::globalContext().float32MatmulPrecision(), at::Float32MatmulPrecision::HIGHEST);
    EXPECT_TRUE(arithmetic_is_exact());
  }
  EXPECT_TRUE(at::autocast::is_autocast_enabled(c10::DeviceType::CPU));
  at::autocast::set_autocast_enabled(c10::DeviceType::CPU, false);
}

TEST(ExactArithmetic, TheStampNamesTheArithmetic) {
  ProbeExtractor probe;
  FeatureOptions o;
  o.spec = "inception";
  o.allow_random = true;
  const StatsProtocol p = extractor_protocol(o, probe);
  EXPECT_EQ(p.arithmetic, kExactArithmetic);
  const StatsProtocol back = parse_protocol_json(protocol_json(p), "stamp");
  EXPECT_EQ(back.arithmetic, kExactArithmetic);
  EXPECT_NE(protocol_summary(p).find(kExactArithmetic), std::string::npos);
}

}  // namespace
}  // namespace hamgan
