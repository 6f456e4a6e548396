#pragma once
// The global random-number state of LibTorch (the CPU generator and every CUDA
// device's), captured as tensors so a checkpoint can carry it and scoped work
// (grids, evaluation, standing statistics) can leave the training stream as it
// found it.
#include <torch/torch.h>

#include <vector>

namespace hamgan {

struct RngState {
  torch::Tensor cpu;                // the default CPU generator's state
  std::vector<torch::Tensor> cuda;  // one per CUDA device, in device order (empty without CUDA)
};

RngState capture_rng_state();
// Restores what capture_rng_state returned; CUDA states beyond the devices present are ignored.
void restore_rng_state(const RngState& state);

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
