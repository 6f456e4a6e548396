#include "gan/checkpoint/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/atomic_file.h"
#include "core/rng.h"
#include "core/errors.h"

namespace hamgan {
namespace fs = std::filesystem;

// --- networks --------------------------------------------------------------------------------
int64_t load_checkpoint(const std::string& path, const CheckpointRefs& refs, bool restore_rng, torch::Device device) {
  CheckpointReader reader(path, device);
  // Holders are shared pointers: loading through a copy fills the caller's modules.
  if (refs.g) reader.load_module("G", *refs.g.ptr());
  if (refs.d) reader.load_module("D", *refs.d.ptr());
  if (refs.g_ema) reader.load_module("G_ema", *refs.g_ema.ptr());
  if (refs.g_opt) reader.load_optimizer("G_opt", *refs.g_opt);
  if (refs.d_opt) reader.load_optimizer("D_opt", *refs.d_opt);
  if (restore_rng) restore_rng_state(read_rng_state(reader));
  return reader.get_int("step");
}

ModelConfig read_checkpoint_model_config(const std::string& path) {
  CheckpointReader reader(path);
  return model_config_from_text(reader.get_string("model_config"));
}

bool checkpoint_has_ema(const std::string& path) { return CheckpointReader(path).has_module("G_ema"); }

void write_rng_state(CheckpointWriter& writer, const RngState& rng) { writer.put("rng_cpu", rng.cpu); }

void check_cpu_rng_state(const torch::Tensor& state, const std::string& path, const std::string& key) {
  auto gen = make_cpu_generator(0);
  const torch::Tensor expected = generator_state(gen);
  if (state.scalar_type() != expected.scalar_type() || state.numel() != expected.numel())
    throw CheckpointError(path + ": the random-number state '" + key + "' has " + std::to_string(state.numel()) +
                          " " + std::string(c10::toString(state.scalar_type())) + " values where LibTorch's CPU " +
                          "generator takes " + std::to_string(expected.numel()) + " " +
                          c10::toString(expected.scalar_type()) +
                          "; the file is damaged: resume from an earlier checkpoint");
}

RngState read_rng_state(CheckpointReader& reader) {
  RngState rng;
  rng.cpu = reader.get_tensor("rng_cpu");
  check_cpu_rng_state(rng.cpu, reader.path(), "rng_cpu");
  return rng;
}

}  // namespace hamgan
