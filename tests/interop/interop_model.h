#pragma once
// Small checkpoints for the interoperability tests: one per context block, whose
// generator is far from its initialisation where an export could go wrong.
#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "gan/train/train_state.h"
#include "tests/common/train_test_util.h"

namespace hamgan::test {

struct InteropCase {
  std::string name;   // also the case's directory
  std::string block;  // g_block
  std::map<std::string, std::string> options;
  int64_t g_ch = 16;
};

// Every block, the Hamburger with each decomposition (random bases) and with online bases.
// ylg needs 8 heads of 8 channels: 64 at the context map, g_ch 32 at both plans.
inline std::vector<InteropCase> every_block() {
  return {{"none", "none", {}},
          {"sa", "sa", {}},
          {"sa_dense", "sa_dense", {}},
          {"ylg", "ylg", {}, 32},
          {"ea", "ea", {{"ea_memory", "16"}}},
          {"ham_nmf", "ham", {{"ham_type", "nmf"}, {"ham_rank", "4"}}},
          {"ham_vq", "ham", {{"ham_type", "vq"}, {"ham_rank", "4"}}},
          {"ham_cd", "ham", {{"ham_type", "cd"}, {"ham_rank", "4"}}},
          {"ham_nmf_online", "ham", {{"ham_type", "nmf"}, {"ham_rank", "4"}, {"ham_init", "online"}}}};
}

// Every context sigma 0.5 (at 0 a block is the identity and an export would prove nothing about it),
// class-dependent BN gains and biases (a label mix-up shows), BN running statistics away from 0 and 1.
inline void make_nontrivial(torch::nn::Module& g) {
  torch::NoGradGuard no_grad;
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (auto& p : g.named_parameters()) {
    if (ends_with(p.key(), "sigma"))
      p.value().fill_(0.5);
    else if (ends_with(p.key(), ".gain"))
      p.value().copy_(1.0 + 0.2 * torch::randn_like(p.value()));
    else if (ends_with(p.key(), ".bias"))
      p.value().copy_(0.1 * torch::randn_like(p.value()));
  }
  for (auto& b : g.named_buffers()) {
    if (ends_with(b.key(), "running_mean"))
      b.value().copy_(0.2 * torch::randn_like(b.value()));
    else if (ends_with(b.key(), "running_var"))
      b.value().copy_(0.5 + torch::rand_like(b.value()));
  }
}

inline TrainConfig interop_config(const std::string& dir, int64_t resolution, const InteropCase& c) {
  TrainConfig cfg = tiny_config(dir);
  cfg.model.resolution = resolution;
  cfg.model.image_channels = 3;
  cfg.model.z_dim = 16;
  cfg.model.g_ch = c.g_ch;
  cfg.model.d_ch = 8;
  cfg.model.g_block.name = c.block;
  cfg.model.d_block.name = "none";
  cfg.model.block_options = c.options;
  cfg.ema = true;
  return cfg;
}

// A checkpoint file of case `c` at `resolution`, the same on every run (seeded); both G and its EMA
// copy made non-trivial, so the raw and the EMA weights are exercised alike.
inline void write_interop_checkpoint(const std::string& path, int64_t resolution, const InteropCase& c) {
  torch::manual_seed(1234);
  TrainState s(interop_config(path + ".run", resolution, c), torch::kCPU);
  make_nontrivial(*s.g);
  make_nontrivial(*s.g_ema);
  s.save(path);
}

}  // namespace hamgan::test
