// Precision modes (docs/training.md "Precision"), all on CPU: bf16 autocast trains
// and really computes in bf16, channels_last matches the default layout, and the TF32
// switches follow the mode (non-finite steps: nonfinite_steps_test.cpp).
#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <vector>

#include "core/errors.h"
#include "gan/step/precision.h"
#include "gan/train/resume_check.h"
#include "gan/train/train_state.h"
#include "gan/train/trainer.h"
#include "modules/spectral_norm.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

double relative_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return ((a.to(torch::kDouble) - b.to(torch::kDouble)).norm() / b.to(torch::kDouble).norm().clamp_min(1e-30))
      .item<double>();
}

// G's and D's parameters, flattened in order, after the run's last step.
struct FinalWeights {
  torch::Tensor g, d;
  bool all_float32 = true;
};

std::unique_ptr<TrainHook> capture_weights(FinalWeights& out) {
  return make_callback_hook([&out](TrainState& s, RunContext& run) {
    if (!run.last_step(s)) return;
    std::vector<torch::Tensor> g, d;
    for (const auto& p : s.g->parameters()) {
      out.all_float32 = out.all_float32 && p.scalar_type() == torch::kFloat;
      g.push_back(p.detach().flatten().clone());
    }
    for (const auto& p : s.d->parameters()) {
      out.all_float32 = out.all_float32 && p.scalar_type() == torch::kFloat;
      d.push_back(p.detach().flatten().clone());
    }
    out.g = torch::cat(g);
    out.d = torch::cat(d);
  });
}

FinalWeights train_and_capture(TrainConfig c) {
  FinalWeights w;
  TrainHooks hooks;
  hooks.push_back(capture_weights(w));
  const TrainResult r = train(c, std::move(hooks));
  EXPECT_EQ(r.step, c.steps);
  return w;
}

TEST(Precision, ResolvesAutoPerDevice) {
  EXPECT_EQ(resolve_precision(PrecisionChoice::kAuto, false, torch::kCPU).name(), "fp32");
  EXPECT_EQ(resolve_precision(PrecisionChoice::kFp32, false, torch::kCPU).name(), "fp32");
  EXPECT_EQ(resolve_precision(PrecisionChoice::kTf32, false, torch::kCPU).name(), "tf32");
  EXPECT_EQ(resolve_precision(PrecisionChoice::kBf16, true, torch::kCPU).name(), "bf16");
  EXPECT_TRUE(resolve_precision(PrecisionChoice::kBf16, true, torch::kCPU).channels_last);
  EXPECT_THROW(precision_choice_names().parse("fp16"), ConfigError);
  EXPECT_THROW(train_config_from_text("precision = \"bf8\"\n"), ConfigError);
}

TEST(Precision, ChangingItOnResumeIsARecordedChangeNotARefusedOne) {
  const TrainConfig before = test::tiny_config(test::temp_dir("precision_resume"));
  TrainConfig after = before;
  after.precision = PrecisionChoice::kBf16;
  after.channels_last = true;
  after.max_nonfinite_steps = 3;
  const auto changes = config_changes(before, after);
  ASSERT_EQ(changes.size(), 3u);
  for (const auto& c : changes) EXPECT_FALSE(c.breaks_reproduction) << c.key;
  EXPECT_EQ(changes[0].key, "precision");
  EXPECT_EQ(changes[0].before, "auto");
  EXPECT_EQ(changes[0].after, "bf16");
}

TEST(Precision, Fp32TurnsTf32OffAndTf32TurnsItOn) {
  auto& ctx = at::globalContext();
  const bool cublas = ctx.allowTF32CuBLAS(), cudnn = ctx.allowTF32CuDNN(), benchmark = ctx.benchmarkCuDNN();
  apply_math_mode(resolve_precision(PrecisionChoice::kTf32, false, torch::kCPU));
  EXPECT_TRUE(ctx.allowTF32CuBLAS());
  EXPECT_TRUE(ctx.allowTF32CuDNN());
  apply_math_mode(resolve_precision(PrecisionChoice::kFp32, false, torch::kCPU));
  EXPECT_FALSE(ctx.allowTF32CuBLAS());
  EXPECT_FALSE(ctx.allowTF32CuDNN());
  EXPECT_TRUE(ctx.benchmarkCuDNN());  // training times cuDNN's algorithms per shape in every mode
  ctx.setAllowTF32CuBLAS(cublas);
  ctx.setAllowTF32CuDNN(cudnn);
  ctx.setBenchmarkCuDNN(benchmark);
}

TEST(Precision, Bf16ScopeRunsTheDiscriminatorInBf16) {
  torch::manual_seed(1);
  TrainConfig c = test::tiny_config(test::temp_dir("bf16_scope"));
  seed_initial_weights(c.seed);
  TrainState state(c, torch::kCPU);
  const torch::Tensor images = torch::rand({4, 1, 32, 32}) * 2 - 1;
  const torch::Tensor labels = torch::arange(4);
  const Precision bf16 = resolve_precision(PrecisionChoice::kBf16, false, torch::kCPU);
  // eval(): no power-iteration or BN writes, so both calls see the same weights and buffers.
  state.d->eval();
  torch::Tensor reference, reduced;
  {
    PrecisionScope scope(resolve_precision(PrecisionChoice::kFp32, false, torch::kCPU));
    reference = state.d->forward(images, labels);
  }
  std::shared_ptr<SNConv2dImpl> first_conv;
  for (const auto& m : state.d->modules())
    if ((first_conv = std::dynamic_pointer_cast<SNConv2dImpl>(m))) break;
  ASSERT_TRUE(first_conv);
  {
    PrecisionScope scope(bf16);
    EXPECT_TRUE(at::autocast::is_autocast_enabled(torch::kCPU));
    EXPECT_EQ(first_conv->forward(images).scalar_type(), torch::kBFloat16);
    reduced = state.d->forward(images, labels);
  }
  EXPECT_FALSE(at::autocast::is_autocast_enabled(torch::kCPU));
  EXPECT_EQ(reference.scalar_type(), torch::kFloat);
  // bf16 keeps 8 significant bits (2^-8 ≈ 4e-3 relative per rounding): different, yet close.
  const double diff = relative_difference(reduced, reference);
  EXPECT_GT(diff, 1e-5);
  EXPECT_LT(diff, 5e-2);
  for (const auto& p : state.d->parameters()) EXPECT_EQ(p.scalar_type(), torch::kFloat);
}

TEST(Precision, Bf16TrainingStaysFiniteWithFloat32Weights) {
  TrainConfig c = test::tiny_config(test::temp_dir("bf16_train"));
  c.precision = PrecisionChoice::kBf16;
  TrainConfig reference_cfg = test::tiny_config(test::temp_dir("bf16_train_reference"));
  const FinalWeights bf16 = train_and_capture(c), fp32 = train_and_capture(reference_cfg);
  EXPECT_TRUE(bf16.all_float32);
  EXPECT_TRUE(torch::isfinite(bf16.g).all().item<bool>());
  EXPECT_TRUE(torch::isfinite(bf16.d).all().item<bool>());
  // Same seed, same data: the weights differ by bf16's rounding carried through a few Adam steps only.
  const double g_diff = relative_difference(bf16.g, fp32.g), d_diff = relative_difference(bf16.d, fp32.d);
  EXPECT_GT(g_diff + d_diff, 0.0);
  EXPECT_LT(g_diff, 5e-2);
  EXPECT_LT(d_diff, 5e-2);
  RecordProperty("g_relative_difference", std::to_string(g_diff));
  RecordProperty("d_relative_difference", std::to_string(d_diff));
}

// D's logits on real and generated images and every gradient of G and D after one
// backward pass of the hinge losses, from a state built from `c` (so the same weights).
struct ForwardBackward {
  torch::Tensor logits, grads;
};

ForwardBackward forward_backward(const TrainConfig& c, const Precision& p) {
  seed_initial_weights(c.seed);
  TrainState state(c, torch::kCPU);
  apply_memory_format(*state.g, p);
  apply_memory_format(*state.d, p);
  torch::manual_seed(7);  // the same images, noise and random Ham bases for both layouts
  const torch::Tensor real = p.layout(torch::rand({4, 1, 32, 32}) * 2 - 1), labels = torch::arange(4);
  const torch::Tensor z = torch::randn({4, c.model.z_dim});
  const torch::Tensor logits = state.d->forward(torch::cat({real, state.g->forward(z, labels)}), torch::cat({labels, labels}));
  (torch::relu(1 - logits.slice(0, 0, 4)).mean() + torch::relu(1 + logits.slice(0, 4)).mean()).backward();
  std::vector<torch::Tensor> grads;
  for (const auto& w : state.g->parameters()) grads.push_back(w.grad().flatten());
  for (const auto& w : state.d->parameters()) grads.push_back(w.grad().flatten());
  return {logits.detach(), torch::cat(grads)};
}

TEST(Precision, ChannelsLastMatchesTheDefaultLayout) {
  const TrainConfig c = test::tiny_config(test::temp_dir("channels_last"));
  const Precision nchw = resolve_precision(PrecisionChoice::kFp32, false, torch::kCPU);
  const Precision nhwc = resolve_precision(PrecisionChoice::kFp32, true, torch::kCPU);
  const ForwardBackward a = forward_backward(c, nchw), b = forward_backward(c, nhwc);
  const double logit_diff = relative_difference(b.logits, a.logits), grad_diff = relative_difference(b.grads, a.grads);
  EXPECT_LT(logit_diff, 1e-5);
  EXPECT_LT(grad_diff, 1e-5);
  RecordProperty("logit_relative_difference", std::to_string(logit_diff));
  RecordProperty("grad_relative_difference", std::to_string(grad_diff));
  // The whole loop with channels_last runs and stays finite.
  TrainConfig run = test::tiny_config(test::temp_dir("channels_last_run"));
  run.steps = 2;
  run.channels_last = true;
  const FinalWeights w = train_and_capture(run);
  EXPECT_TRUE(torch::isfinite(w.g).all().item<bool>() && torch::isfinite(w.d).all().item<bool>());
}

}  // namespace
}  // namespace hamgan

namespace hamgan {
namespace {

// bf16 on a CPU without its instructions is emulated: the run warns, and only there.
TEST(Precision, Bf16WarnsOnlyOnACpuWithoutNativeBf16) {
  Precision cpu_bf16;
  cpu_bf16.mode = PrecisionMode::kBf16;
  const std::string zen3 = " fpu vme sse sse2 avx avx2 avx512f avx512bw";
  EXPECT_NE(bf16_speed_warning(cpu_bf16, zen3).find("--precision fp32"), std::string::npos);
  EXPECT_EQ(bf16_speed_warning(cpu_bf16, zen3 + " avx512_bf16 avx512_vnni"), "");
  EXPECT_EQ(bf16_speed_warning(cpu_bf16, " amx_tile amx_bf16 amx_int8"), "");
  Precision fp32;  // fp32 never warns
  EXPECT_EQ(bf16_speed_warning(fp32, zen3), "");
  Precision cuda_bf16 = cpu_bf16;
  cuda_bf16.device_type = torch::kCUDA;
  EXPECT_EQ(bf16_speed_warning(cuda_bf16, zen3), "");
  // This machine's own flags line is read (every x86 Linux lists "fpu").
  EXPECT_NE(cpu_flags().find("fpu"), std::string::npos);
}

}  // namespace
}  // namespace hamgan
