#pragma once
// The global random-number state of LibTorch (the CPU generator and the current
// CUDA device's: this rank's GPU), captured as tensors so scoped work (grids,
// evaluation, standing statistics) can leave the training stream as it found
// it. Checkpoints keep the CPU generator here and each rank's device generator
// through TrainState, so that rank k resumes its own GPU's stream.
#include <torch/torch.h>

#include <vector>

namespace hamgan {

struct RngState {
  torch::Tensor cpu;   // the default CPU generator's state
  torch::Tensor cuda;  // the current CUDA device's default generator (undefined without CUDA)
  c10::DeviceIndex cuda_device = -1;
};

RngState capture_rng_state();
void restore_rng_state(const RngState& state);

// The default generator of `device` when it is a CUDA device; undefined for the CPU.
at::Generator device_generator(const torch::Device& device);
// A generator's state, read under its lock (the CUDA generator's is seed and offset).
torch::Tensor generator_state(at::Generator& gen);
void set_generator_state(at::Generator& gen, const torch::Tensor& state);

// A private CPU generator seeded with `seed`: draws from it never touch the global stream.
at::Generator make_cpu_generator(uint64_t seed);

// Saves the global RNG states on construction and restores them on destruction,
// around work that must not change the training random stream.
class ScopedRngRestore {
 public:
  ScopedRngRestore() : saved_(capture_rng_state()) {}
  ~ScopedRngRestore() { restore_rng_state(saved_); }
  ScopedRngRestore(const ScopedRngRestore&) = delete;
  ScopedRngRestore& operator=(const ScopedRngRestore&) = delete;

 private:
  RngState saved_;
};

}  // namespace hamgan
