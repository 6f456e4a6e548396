// A device-checking run: the training path on the meta device, whose tensors
// have a shape and a device but no data. Every op on the path must find its
// inputs on the model's device: a tensor made on the CPU and mixed in (a CUDA
// run would copy it every step, or fail) ends the run with a device mismatch,
// and a host read (.item(), a copy to the CPU) fails because there is nothing
// to read. The fused CPU Hamburger kernel steps aside by its own device check,
// so the ATen path a GPU takes is the one checked. Runs on any machine; the
// shape rules LibTorch's C++ library lacks for meta tensors are in meta_kernels.cpp.
#include <gtest/gtest.h>

#include "gan/sample/sampler.h"
#include "gan/sample/standing_stats.h"
#include "gan/step/steps.h"
#include "gan/train/train_state.h"
#include "tests/common/device_mix_watch.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

const torch::Device kMeta(torch::kMeta);

// LibTorch's Module::to refuses the meta device (set_data between CPU and meta
// tensors), so each parameter and buffer takes a meta tensor's metadata in
// place: every handle the module, its layers and the optimisers hold follows.
void move_to_meta(torch::nn::Module& m) {
  for (const auto& tensors : {m.parameters(), m.buffers()})
    for (const auto& t : tensors) t.unsafeGetTensorImpl()->shallow_copy_from(t.detach().to(kMeta).getIntrusivePtr());
}

bool on_meta(torch::nn::Module& m) {
  for (const auto& p : m.parameters())
    if (p.device() != kMeta) return false;
  for (const auto& b : m.buffers())
    if (b.device() != kMeta) return false;
  return true;
}

struct MetaRun {
  TrainConfig cfg = test::tiny_config(test::temp_dir("meta_device"));
  std::unique_ptr<TrainState> state;
  MetaRun() {
    seed_initial_weights(cfg.seed);
    state = std::make_unique<TrainState>(cfg, torch::kCPU);
    for (torch::nn::Module* m : {static_cast<torch::nn::Module*>(state->g.get()),
                                 static_cast<torch::nn::Module*>(state->d.get()),
                                 static_cast<torch::nn::Module*>(state->g_ema.get())})
      move_to_meta(*m);
    state->device = kMeta;
  }
};

TEST(MetaDevice, TrainingStepsStayOnTheModelsDevice) {
  MetaRun r;
  TrainState& s = *r.state;
  ASSERT_TRUE(on_meta(*s.g) && on_meta(*s.d) && on_meta(*s.g_ema));
  NoSync sync;
  StepConfig step{r.cfg.d_steps, r.cfg.batch_size, Precision{}};
  // Real batches come from the loader on the CPU, as in a run: d_step moves them.
  const Batch batch{torch::randint(0, 256, {r.cfg.batch_size, 1, 32, 32}, torch::kUInt8),
                    torch::randint(0, 10, {r.cfg.batch_size}, torch::kLong), torch::rand({r.cfg.batch_size}) < 0.5};
  const BatchSource batches = [&] { return batch; };
  const size_t mixed_before = test::DeviceMixWatch::mixed().size();
  test::DeviceMixWatch watch;
  for (int64_t accumulate : {1, 2}) {
    step.accumulate = accumulate;
    StepStats stats;
    try {
      d_step(s, batches, step, sync, stats);
      g_step(s, step, sync, stats);
      ema_step(s, EmaSchedule{r.cfg.ema_decay, r.cfg.ema_start});
    } catch (const c10::Error& e) {
      FAIL() << "accumulate " << accumulate << ": " << e.what_without_backtrace();
    }
    for (const auto* t : {&stats.d_loss, &stats.g_loss, &stats.d_real, &stats.d_fake})
      EXPECT_EQ(t->device(), kMeta) << "accumulate " << accumulate;  // losses stay on the device
  }
  EXPECT_TRUE(on_meta(*s.g) && on_meta(*s.d) && on_meta(*s.g_ema));
  const auto mixed = test::DeviceMixWatch::mixed();
  EXPECT_EQ(mixed.size(), mixed_before) << "ops given a CPU tensor beside the model's: "
                                        << test::joined({mixed.begin() + static_cast<long>(mixed_before), mixed.end()});
}

TEST(MetaDevice, ACpuTensorOrAHostReadOnThePathIsCaught) {
  // The check can fail: what a GPU run would copy or wait for ends the meta run.
  MetaRun r;
  Generator& g = r.state->g;
  at::Generator gen = make_cpu_generator(7);
  const torch::Tensor z_cpu = sample_z(4, r.cfg.model.z_dim, 0.0, gen);
  const torch::Tensor y = balanced_labels(0, 4, r.cfg.model.num_classes).to(kMeta);
  const size_t mixed_before = test::DeviceMixWatch::mixed().size();
  {
    test::DeviceMixWatch watch;
    try {
      g->forward(z_cpu, y);  // z left on the CPU: the first layer mixes devices
    } catch (const c10::Error&) {
      // Some meta kernels check devices themselves; the watch does for all.
    }
  }
  EXPECT_GT(test::DeviceMixWatch::mixed().size(), mixed_before);
  const torch::Tensor images = g->forward(z_cpu.to(kMeta), y);
  EXPECT_THROW(images.mean().item<float>(), c10::Error);
}

TEST(MetaDevice, StandingStatisticsAndEvaluationSamplingStayOnTheModelsDevice) {
  MetaRun r;
  Generator& g = r.state->g_ema;
  const size_t mixed_before = test::DeviceMixWatch::mixed().size();
  test::DeviceMixWatch watch;
  try {
    accumulate_standing_stats(g, 2, r.cfg.batch_size, 7);
    torch::NoGradGuard no_grad;
    g->eval();
    // What `generate` runs per batch before it copies the images out.
    at::Generator gen = make_cpu_generator(7);
    const torch::Tensor images = g->forward(sample_z(4, r.cfg.model.z_dim, 0.0, gen).to(kMeta),
                                            balanced_labels(0, 4, r.cfg.model.num_classes).to(kMeta));
    EXPECT_EQ(images.device(), kMeta);
    EXPECT_EQ(images.sizes(), (std::vector<int64_t>{4, 1, 32, 32}));
  } catch (const c10::Error& e) {
    FAIL() << e.what_without_backtrace();
  }
  EXPECT_TRUE(on_meta(*g));
  const auto mixed = test::DeviceMixWatch::mixed();
  EXPECT_EQ(mixed.size(), mixed_before) << "ops given a CPU tensor beside the model's: "
                                        << test::joined({mixed.begin() + static_cast<long>(mixed_before), mixed.end()});
}

}  // namespace
}  // namespace hamgan
