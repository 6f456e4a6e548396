// Training on CUDA ($HAMGAN_TEST_DEVICE, default cuda): 20 steps of
// fmnist_ham in tf32, then in bf16 with channels_last, each stopped halfway
// and resumed; a checkpoint written on CUDA read on the CPU and back. Skipped
// without CUDA, failed instead with HAMGAN_REQUIRE_CUDA=1 (tests/common/cuda_test_util.h).
#include <gtest/gtest.h>

#include <filesystem>

#include "core/device.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/train/trainer.h"
#include "tests/common/cuda_test_util.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

// experiments/fmnist_ham.toml as the demo trains it, on the test device, without evaluation.
TrainConfig cuda_config(const std::string& name, PrecisionChoice precision, bool channels_last) {
  TrainConfig c = train_config_from_text(test::file_contents(std::string(HAMGAN_SOURCE_DIR) +
                                                             "/experiments/fmnist_ham.toml"));
  c.run_dir = test::temp_dir("cuda_" + name);
  c.progress = false;
  c.eval_every = 0;
  c.device = test::cuda_test_device();
  c.precision = precision;
  c.channels_last = channels_last;
  c.steps = 20;
  c.checkpoint_every = 10;
  c.sample_every = 0;
  c.log_every = 5;
  c.config_text = resolved_config_text(c);
  return c;
}

std::vector<torch::Tensor> weights_on_cpu(TrainState& s) {
  std::vector<torch::Tensor> out;
  for (auto* m : {static_cast<torch::nn::Module*>(s.g.get()), static_cast<torch::nn::Module*>(s.d.get())})
    for (const auto& p : m->parameters()) out.push_back(p.detach().cpu());
  return out;
}

void train_halfway_then_resume(TrainConfig c) {
  c.steps = 10;
  EXPECT_EQ(train(c).step, 10);
  c.steps = 20;
  c.resume = ResumeMode::kYes;
  const TrainResult r = train(c);
  EXPECT_EQ(r.step, 20);
  EXPECT_EQ(r.checkpoint, c.run_dir + "/checkpoints/step_0000020.pt");
  // The checkpoint holds finite weights and loads on the CPU.
  TrainState on_cpu(c, torch::kCPU);
  on_cpu.load(r.checkpoint);
  EXPECT_TRUE(on_cpu.all_finite());
  EXPECT_EQ(on_cpu.step, 20);
}

TEST(CudaTraining, ItsConfigIsFmnistHamAndReadsOnAnyMachine) {
  TrainConfig c = cuda_config("config", PrecisionChoice::kTf32, false);
  EXPECT_EQ(c.model.g_block.name, "ham");
  EXPECT_EQ(c.model.d_block.name, "ham");
  EXPECT_EQ(c.batch_size, 64);
  EXPECT_EQ(c.steps, 20);
  c.device = "cpu";  // validate() resolves the device: this machine may have no GPU
  EXPECT_NO_THROW(c.validate());
}

TEST(CudaTraining, Tf32TwentyStepsWithResume) {
  REQUIRE_CUDA_OR_SKIP();
  train_halfway_then_resume(cuda_config("tf32", PrecisionChoice::kTf32, false));
}

TEST(CudaTraining, Bf16ChannelsLastTwentyStepsWithResume) {
  REQUIRE_CUDA_OR_SKIP();
  train_halfway_then_resume(cuda_config("bf16", PrecisionChoice::kBf16, true));
}

TEST(CudaCheckpoint, WrittenOnCudaReadOnTheCpuAndBack) {
  REQUIRE_CUDA_OR_SKIP();
  const TrainConfig c = cuda_config("checkpoint", PrecisionChoice::kFp32, false);
  const torch::Device cuda = resolve_device(c.device);
  use_device(cuda);
  seed_initial_weights(c.seed);
  TrainState on_gpu(c, cuda);
  const std::string a = c.run_dir + "/a.pt", b = c.run_dir + "/b.pt";
  std::filesystem::create_directories(c.run_dir);
  on_gpu.save(a);
  TrainState on_cpu(c, torch::kCPU);
  on_cpu.load(a);
  on_cpu.save(b);
  TrainState back(c, cuda);
  back.load(b);
  EXPECT_TRUE(back.device_rng_restored);  // the GPU's generator went through the CPU file and back
  const auto want = weights_on_cpu(on_gpu), got = weights_on_cpu(back), mid = weights_on_cpu(on_cpu);
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(torch::equal(want[i], mid[i])) << "parameter " << i << " on the CPU";
    EXPECT_TRUE(torch::equal(want[i], got[i])) << "parameter " << i << " back on CUDA";
  }
  EXPECT_TRUE(back.g->parameters().front().device().is_cuda());
}

}  // namespace
}  // namespace hamgan
