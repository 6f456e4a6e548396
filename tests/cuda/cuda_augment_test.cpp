// The augmentations D sees on CUDA (gan/step/augment.h, gan/step/ada.h): the
// draws a CUDA run applies equal a CPU run's, the outputs agree, and drawing,
// applying (forward and backward) and ADA's accumulation run under sync-debug
// mode without a host synchronisation. Skipped without CUDA.
#include <gtest/gtest.h>

#ifdef HAMGAN_WITH_CUDA
#include <c10/cuda/CUDAFunctions.h>
#endif

#include "core/device.h"
#include "gan/step/ada.h"
#include "gan/step/augment.h"
#include "tests/common/cuda_test_util.h"

namespace hamgan {
namespace {

at::Generator seeded(uint64_t seed) { return at::make_generator<at::CPUGeneratorImpl>(seed); }

TEST(CudaAugment, SameDrawsAndOutputsAsOnTheCpu) {
  REQUIRE_CUDA_OR_SKIP();
  const torch::Device cuda = resolve_device(test::cuda_test_device());
  const AugmentPolicy policy = parse_augment_policy(kDefaultAugmentPolicy);
  auto g_cpu = seeded(11), g_cuda = seeded(11);
  const AugmentDraws on_cpu = draw_augment(policy, 16, 32, 32, 0.5, g_cpu);
  const AugmentDraws on_cuda = draw_augment(policy, 16, 32, 32, 0.5, g_cuda, cuda);
  ASSERT_TRUE(on_cuda.apply.is_cuda());
  EXPECT_TRUE(torch::equal(on_cuda.shift.cpu(), on_cpu.shift));
  EXPECT_TRUE(torch::equal(on_cuda.cutout_offset.cpu(), on_cpu.cutout_offset));
  EXPECT_TRUE(torch::equal(on_cuda.brightness.cpu(), on_cpu.brightness));
  EXPECT_TRUE(torch::equal(on_cuda.apply.cpu(), on_cpu.apply));
  const torch::Tensor x = torch::rand({16, 3, 32, 32}, seeded(12)) * 2 - 1;
  const torch::Tensor y_cpu = apply_augment(x, on_cpu), y_cuda = apply_augment(x.to(cuda), on_cuda).cpu();
  EXPECT_LT((y_cpu - y_cuda).abs().max().item<double>(), 1e-6);  // reductions may round differently
}

TEST(CudaAugment, DrawApplyAndAdaWithoutHostSynchronisation) {
  REQUIRE_CUDA_OR_SKIP();
#ifndef HAMGAN_WITH_CUDA
  FAIL() << "built without the CUDA code path (HAMGAN_WITH_CUDA): sync-debug mode is out of reach";
#else
  const torch::Device cuda = resolve_device(test::cuda_test_device());
  use_device(cuda);
  const AugmentPolicy policy = parse_augment_policy(kDefaultAugmentPolicy);
  auto g = seeded(13);
  const torch::Tensor x = (torch::rand({8, 1, 28, 28}, torch::TensorOptions(cuda)) * 2 - 1).requires_grad_(true);
  AdaController ada({}, cuda);
  const auto one_step = [&] {
    const AugmentDraws d = draw_augment(policy, 8, 28, 28, ada.p(), g, cuda);
    const torch::Tensor y = apply_augment(x, d);
    y.square().sum().backward();
    ada.observe(y.mean({1, 2, 3}));
    ada.end_update(8);
  };
  one_step();  // warm-up: lazy initialisation may synchronise once
  torch::cuda::synchronize(cuda.index());
  c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_ERROR);
  try {
    for (int i = 0; i < 2; ++i) one_step();  // updates 2 and 3 of the interval of 4: no read
  } catch (const c10::Error& e) {
    ADD_FAILURE() << "augmenting synchronised with the host: " << e.what_without_backtrace();
  }
  c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_DISABLED);
  torch::cuda::synchronize(cuda.index());
#endif
}

}  // namespace
}  // namespace hamgan
