#pragma once
// What reproduces a run, written beside its resolved config as
// <run>/provenance.json: the source revision (and whether the tree had local
// changes), LibTorch and CUDA versions, the devices, the command line, the
// world size and the precision. Rewritten on every start or resume
// (start_step says which).
#include <torch/torch.h>

#include <string>

namespace hamgan {

struct Provenance {
  std::string run_id;
  torch::Device device = torch::kCPU;
  int64_t world_size = 1;
  std::string precision = "fp32";
  int64_t start_step = 0;  // 0 for a fresh run, the resumed step otherwise
};

// The device as people know it: the GPU model ("NVIDIA H100 80GB HBM3"), or "CPU, N threads".
std::string device_description(const torch::Device& device);

// The JSON text (one object, stable key order).
std::string provenance_json(const Provenance& p);
// Writes <run_dir>/provenance.json atomically.
void write_provenance(const std::string& run_dir, const Provenance& p);

}  // namespace hamgan
