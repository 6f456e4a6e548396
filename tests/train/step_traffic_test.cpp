// What the ImageNet-128 Hamburger step moves through memory, counted on the CPU
// (`hamgan bench train --profile`, core/op_traffic.h): in bf16 the activations
// stay bf16 between the convolutions, so the step's memory-bound bytes stay
// under a ceiling, well below the same step's in fp32, with a bounded number of
// float32<->bf16 conversions of feature maps. The ceilings are the counts of the
// code as it stands (docs/training.md, "Memory traffic"); the goals are lower:
// bf16 bytes ≤ 0.6× fp32's and no activation cast outside statistics.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gan/step/precision.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

// Counted on the code as it stands (docs/training.md, "Memory traffic"), to be lowered as the step
// improves; the goals: per-image bytes at most 0.6 of fp32's, no activation cast, at most 1,300 kernels.
constexpr double kCeilingBytesPerImage = 3.95e8, kCeilingBf16OverFp32 = 0.534, kCeilingCasts = 21, kCeilingKernels = 2113;

// Fashion-MNIST's Hamburger (r = 4) takes the fused CPU NMF kernel, ImageNet-128's (r = 32) the batched
// products: each has a ceiling on its casts.
constexpr double kCeilingFmnistCasts = 14;

// Batch 7 divides none of the model's channel counts, so the cast rule sees only feature maps.
nlohmann::json profile_of(const std::string& precision, const std::string& experiment = "imagenet128_ham") {
  const std::string dir = test::temp_dir("step_traffic_" + experiment + precision), json = dir + "/bench.json";
  // A missing data set gives the bench synthetic images of the configured size.
  std::string out;
  const int status = test::run_command(std::string(test::hamgan_bin()) + " bench train --config " +
                                           HAMGAN_SOURCE_DIR + "/experiments/" + experiment + ".toml --dataset " +
                                           dir + "/absent --device cpu --threads 2 --batch 7 --steps 1 --warmup 0 "
                                           "--profile --precision " + precision + " --out " + json,
                                       &out);
  EXPECT_EQ(status, 0) << out;
  return status == 0 ? nlohmann::json::parse(test::file_contents(json))["profile"] : nlohmann::json();
}

double total(const nlohmann::json& profile, const char* key) { return profile[key]["total"].get<double>(); }

bool cpu_has_native_bf16() {
  const std::string flags = cpu_flags();
  return flags.find("avx512_bf16") != std::string::npos || flags.find("amx_bf16") != std::string::npos;
}

// Where bf16 is emulated, ATen takes other convolution paths with kernels of their own: the counts
// below are those of a CPU with native bf16 (as the GPU path has no such detour).
constexpr const char* kNoNativeBf16 =
    "this CPU has no native bf16 (no avx512_bf16 or amx_bf16 flag); the ceilings are for one that has";

TEST(StepTraffic, Imagenet128HamInBf16StaysUnderItsCeilings) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  if (!cpu_has_native_bf16()) GTEST_SKIP() << kNoNativeBf16;
  const nlohmann::json bf16 = profile_of("bf16"), fp32 = profile_of("fp32");
  ASSERT_FALSE(bf16.is_null() || fp32.is_null());
  // Per image: what each image adds (tensors that grow with the batch), the part that matters at batch 256.
  const double per_image_bf16 = bf16["memory_bound_bytes_per_image"].get<double>();
  const double per_image_fp32 = fp32["memory_bound_bytes_per_image"].get<double>();
  const double casts = total(bf16, "activation_casts_per_step"), kernels = total(bf16, "kernels_per_step");
  ::testing::Test::RecordProperty("bf16_bytes_per_image", std::to_string(per_image_bf16));
  ::testing::Test::RecordProperty("bf16_over_fp32", std::to_string(per_image_bf16 / per_image_fp32));
  ::testing::Test::RecordProperty("bf16_activation_casts", std::to_string(casts));
  ::testing::Test::RecordProperty("bf16_kernels", std::to_string(kernels));
  // fp32 converts nothing; bf16 moves fewer bytes than fp32, in all and per image.
  EXPECT_EQ(total(fp32, "activation_casts_per_step"), 0);
  EXPECT_LT(total(bf16, "memory_bound_bytes_per_step"), total(fp32, "memory_bound_bytes_per_step"));
  EXPECT_LT(per_image_bf16, per_image_fp32);
  // The ceilings: the code's counts today, with 2% headroom for ATen's own changes.
  EXPECT_LE(per_image_bf16, kCeilingBytesPerImage * 1.02) << per_image_bf16;
  EXPECT_LE(per_image_bf16 / per_image_fp32, kCeilingBf16OverFp32 * 1.02) << per_image_bf16 / per_image_fp32;
  EXPECT_LE(casts, kCeilingCasts) << bf16["activation_casts_per_step"].dump();
  EXPECT_LE(kernels, kCeilingKernels * 1.02) << kernels;
}

TEST(StepTraffic, FmnistHamReadsItsBf16FeatureMapsAsStored) {
  // The fused NMF kernel reads the bread's bf16 X and writes ∂X in bf16: a float32 copy of X, or a
  // cast of its gradient, in either network's Hamburger adds casts past the ceiling.
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  if (!cpu_has_native_bf16()) GTEST_SKIP() << kNoNativeBf16;
  const nlohmann::json bf16 = profile_of("bf16", "fmnist_ham");
  ASSERT_FALSE(bf16.is_null());
  EXPECT_LE(total(bf16, "activation_casts_per_step"), kCeilingFmnistCasts) << bf16["activation_casts_per_step"].dump();
}

}  // namespace
}  // namespace hamgan
