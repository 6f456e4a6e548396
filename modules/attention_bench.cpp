// `hamgan bench attention`: SA vs the YLG kernels (dense-masked reference,
// gathered allowed keys, pattern-structured blocks). See docs/modules.md for measured numbers.
#include "modules/attention_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "core/threads.h"
#include "core/device.h"
#include "core/errors.h"
#include "modules/attention.h"
#include "modules/ylg_masks.h"

namespace hamgan {
namespace {

struct Timing {
  double wall_ms, cpu_ms;  // medians over calls
};

// Medians are robust to other jobs sharing the machine; process CPU time is
// less sensitive to contention than wall time on a loaded CPU.
Timing time_ms(const std::function<void()>& fn, int64_t iters, const torch::Device& d) {
  fn();  // warm-up: builds masks, allocator caches
  synchronize(d);
  std::vector<double> wall, cpu;
  for (int64_t i = 0; i < iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto c0 = std::clock();
    fn();
    synchronize(d);
    cpu.push_back(1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

// Attention-score entries (softmax inputs) per call, the memory that grows with N.
int64_t score_entries(const std::string& variant, int64_t batch, int64_t size) {
  const int64_t n_out = size * size, n = n_out / 4;
  const auto s = static_cast<int64_t>(std::floor(std::sqrt(static_cast<double>(n)) + 1e-9));
  if (variant == "sa") return batch * n_out * n;
  if (variant == "ylg-dense") return batch * 8 * n_out * n;
  if (variant == "ylg-gather") return batch * 8 * n_out * ylg_masks(size, size).sum(-1).max().item<int64_t>();
  const int64_t blocks = (n + s - 1) / s;
  return batch * 4 * (blocks * 4 * s * s + n_out * (n / s + 1));
}

}  // namespace

void run_attention_bench(const AttentionBenchConfig& cfg, std::ostream& out) {
  const torch::Device dev = resolve_device(cfg.device);
  if (cfg.channels % 64 || cfg.size % 2)
    throw ConfigError("bench attention: --channels must be a multiple of 64 and --size even");
  apply_thread_count(cfg.threads);
  torch::manual_seed(0);
  std::vector<std::pair<std::string, std::shared_ptr<AttentionBaseImpl>>> blocks = {
      {"sa", std::make_shared<SelfAttentionImpl>(cfg.channels)},
      {"ylg-dense", std::make_shared<YlgAttentionImpl>(cfg.channels, YlgKernel::kDense)},
      {"ylg-gather", std::make_shared<YlgAttentionImpl>(cfg.channels, YlgKernel::kGather)},
      {"ylg-blocked", std::make_shared<YlgAttentionImpl>(cfg.channels, YlgKernel::kBlocked)}};
  // Same weights (and SN u vectors) for the YLG variants so their outputs can be compared.
  auto sync_ylg_state = [&] {
    torch::NoGradGuard ng;
    for (size_t v = 2; v < blocks.size(); ++v) {
      auto src = blocks[1].second->parameters(), dst = blocks[v].second->parameters();
      for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
      auto sb = blocks[1].second->buffers(), db = blocks[v].second->buffers();
      for (size_t i = 0; i < sb.size(); ++i) db[i].copy_(sb[i]);
    }
  };
  {
    torch::NoGradGuard ng;
    for (auto& b : blocks) b.second->sigma.fill_(1.0);
  }
  const auto x = torch::randn({cfg.batch, cfg.channels, cfg.size, cfg.size}, torch::TensorOptions(dev));
  char line[256];
  std::snprintf(line, sizeof line, "attention bench: batch %lld, C %lld, %lldx%lld, %s, %d threads, %lld iters\n",
                (long long)cfg.batch, (long long)cfg.channels, (long long)cfg.size, (long long)cfg.size,
                device_name(dev).c_str(), torch::get_num_threads(), (long long)cfg.iters);
  out << line;
  out << "variant      fwd_wall_ms  fwd_cpu_ms  f+b_wall_ms  f+b_cpu_ms  score_entries\n";
  std::vector<torch::Tensor> outputs;
  for (auto& [name, block] : blocks) {
    block->to(dev);
    block->train();
    const Timing fwd = time_ms(
        [&] {
          torch::NoGradGuard ng;
          block->forward(x);
        },
        cfg.iters, dev);
    const Timing fb = time_ms(
        [&] {
          block->zero_grad();
          block->forward(x).sum().backward();
        },
        cfg.iters, dev);
    std::snprintf(line, sizeof line, "%-12s %11.1f %11.1f %12.1f %11.1f %14lld\n", name.c_str(), fwd.wall_ms,
                  fwd.cpu_ms, fb.wall_ms, fb.cpu_ms,
                  (long long)score_entries(name, cfg.batch, cfg.size));
    out << line;
  }
  sync_ylg_state();
  for (auto& [name, block] : blocks) {
    block->eval();
    torch::NoGradGuard ng;
    outputs.push_back(block->forward(x));
  }
  for (size_t v = 2; v < blocks.size(); ++v) {
    std::snprintf(line, sizeof line, "max |ylg-dense - %s| = %.3g\n", blocks[v].first.c_str(),
                  (outputs[1] - outputs[v]).abs().max().item<double>());
    out << line;
  }
}

}  // namespace hamgan
