#pragma once
// Two-rank data-parallel runs for tests: each rank a forked child running train()
// with torchrun's variables and a FileStore rendezvous in a scratch directory; at
// the last step each rank dumps every parameter, buffer and optimiser state it
// holds, for the parent to compare.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "gan/train/trainer.h"
#include "tests/common/train_test_util.h"

namespace hamgan::test {

// Every tensor of the state, flattened into one vector per part, in a fixed
// order: G, D and G_ema parameters, their buffers, and Adam's moments and step
// counts for G and for D.
inline const std::vector<std::string> kParts{"G", "G buffers", "D", "D buffers", "G_ema", "G_ema buffers", "G Adam", "D Adam"};

inline std::vector<torch::Tensor> state_tensors(TrainState& s) {
  auto flat = [](const std::vector<torch::Tensor>& ts) {
    std::vector<torch::Tensor> f;
    for (const auto& t : ts) f.push_back(t.detach().reshape(-1).to(torch::kFloat64));
    return f.empty() ? torch::empty({0}, torch::kFloat64) : torch::cat(f);  // Adam holds nothing before its first step
  };
  std::vector<torch::Tensor> out;
  for (torch::nn::Module* m : {static_cast<torch::nn::Module*>(s.g.get()), static_cast<torch::nn::Module*>(s.d.get()),
                               static_cast<torch::nn::Module*>(s.g_ema.get())}) {
    out.push_back(flat(m->parameters()));
    out.push_back(flat(m->buffers()));
  }
  for (torch::optim::Adam* opt : {s.g_opt.get(), s.d_opt.get()}) {
    std::vector<torch::Tensor> moments;
    for (auto& group : opt->param_groups())
      for (auto& p : group.params()) {
        auto it = opt->state().find(p.unsafeGetTensorImpl());
        if (it == opt->state().end()) continue;
        auto& st = static_cast<torch::optim::AdamParamState&>(*it->second);
        moments.push_back(st.exp_avg());
        moments.push_back(st.exp_avg_sq());
        moments.push_back(torch::tensor({static_cast<double>(st.step())}));
      }
    out.push_back(flat(moments));
  }
  return out;
}

// Runs `cfg` as `world` ranks (world 1: one plain process), each in a forked
// child; rank r's state at the last step lands in <dumps>/rank_r.pt. Returns
// the children's exit codes.
inline std::vector<int> run_ranks(const TrainConfig& cfg, int world, const std::string& dumps) {
  std::vector<pid_t> pids;
  std::fflush(stdout);  // the children must not print the parent's buffered lines again
  std::fflush(stderr);
  for (int r = 0; r < world; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      if (world > 1) {
        setenv("RANK", std::to_string(r).c_str(), 1);
        setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
        setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
        setenv("HAMGAN_DIST_INIT", ("file://" + dumps + "/store").c_str(), 1);
      }
      int code = 0;
      try {
        TrainHooks hooks;
        const std::string out = dumps + "/rank_" + std::to_string(r) + ".pt";
        hooks.push_back(make_callback_hook([out](TrainState& s, RunContext& run) {
          if (run.last_step(s)) torch::save(state_tensors(s), out);
        }));
        train(cfg, std::move(hooks));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rank %d: %s\n", r, e.what());
        code = 1;
      }
      std::fflush(stderr);
      _exit(code);
    }
    pids.push_back(pid);
  }
  std::vector<int> codes;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  return codes;
}

inline std::vector<torch::Tensor> load_dump(const std::string& path) {
  std::vector<torch::Tensor> t;
  torch::load(t, path);
  return t;
}

inline TrainConfig dp_config(const std::string& run_dir) {
  TrainConfig c = tiny_config(run_dir);
  c.threads = 1;  // two ranks share the machine's cores
  c.sample_every = 0;
  c.dist_timeout = 60;
  return c;
}

// SA in both networks at width 8 (SA needs C/8 query channels): deterministic, where the
// Hamburger draws random bases whose shape follows the per-rank batch.
inline void use_sa_blocks(ModelConfig& m) {
  m.g_block.name = "sa";
  m.d_block.name = "sa";
  m.block_options.clear();
  m.g_ch = 8;
  m.d_ch = 8;
}

inline const std::vector<int> kAllOk2{0, 0};

// ||a - b|| / ||b|| over one part of the state.
inline double relative_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).norm().item<double>() / std::max(b.norm().item<double>(), 1e-300);
}

}  // namespace hamgan::test
