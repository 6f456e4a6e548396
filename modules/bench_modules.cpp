// `hamgan bench modules`: Table 3 of the paper (params, MACs, memory, time) per context block.
#include "modules/bench_modules.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "core/threads.h"
#include "core/atomic_file.h"
#include "core/device.h"
#include "core/errors.h"
#include "modules/ea_block.h"
#include "modules/memory_meter.h"

namespace hamgan {
namespace {

// "ham:cd" -> the block "ham" with `ham` of type CD; other names pass through.
ContextOptions block_options(const std::string& spec, HamOptions ham) {
  const auto colon = spec.find(':');
  ContextOptions o;
  o.name = spec.substr(0, colon);
  if (colon != std::string::npos) {
    if (o.name != "ham") throw ConfigError("bench modules: only 'ham' takes a type suffix, got '" + spec + "'");
    ham.type = parse_ham_type(spec.substr(colon + 1));
  }
  if (o.name == "ham") o = ham_context_options(ham);
  const auto names = context_block_names();
  if (std::find(names.begin(), names.end(), o.name) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError("bench modules: unknown block '" + spec + "' in --blocks; known: " + known);
  }
  return o;
}

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Milliseconds on the wall clock or of process CPU time (all threads).
double now_ms(bool cpu_clock) {
  if (cpu_clock) {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename F>
double median_ms(const ModuleBenchConfig& c, const torch::Device& device, F&& step) {
  const bool cpu_clock = c.clock == "cpu";
  for (int64_t i = 0; i < c.warmup; ++i) step();
  synchronize(device);
  std::vector<double> times;
  for (int64_t i = 0; i < c.repeats; ++i) {
    const double t0 = now_ms(cpu_clock);
    step();
    synchronize(device);
    times.push_back(now_ms(cpu_clock) - t0);
  }
  return median(times);
}

// 1234567 -> "1.23M" (decimal prefixes; integers below 1000 as they are).
std::string human(double v) {
  const char* prefix[] = {"", "K", "M", "G", "T"};
  int p = 0;
  while (std::abs(v) >= 1000 && p < 4) v /= 1000, ++p;
  std::ostringstream s;
  s << std::fixed << std::setprecision(p == 0 ? 0 : v < 10 ? 2 : 1) << v << prefix[p];
  return s.str();
}

// Bytes in MiB, or KiB below 1 MiB.
std::string human_bytes(int64_t b) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1);
  if (b < 1048576) {
    s << b / 1024.0 << " KiB";
  } else {
    s << b / 1048576.0 << " MiB";
  }
  return s.str();
}

}  // namespace

int64_t module_macs(const ContextOptions& o, const std::vector<int64_t>& shape) {
  const int64_t batch = shape.at(0), c = shape.at(1), n = shape.at(2) * shape.at(3);
  if (o.name == "none") return 0;
  if (o.name == "sa" || o.name == "ylg" || o.name == "sa_dense") {
    // §1.5: θ, φ (C→C/8), g (C→C/2), out (C/2→C) 1×1 convs over n positions; logits (n × keys × C/8)
    // and A·g (n × keys × C/2), keys = n/4 after the 2×2 pooling, n for sa_dense. YLG (§2.2) is
    // counted as the reference's dense masked product: 8 heads partition the same channels, so
    // the count equals SA's.
    const int64_t keys = o.name == "sa_dense" ? n : (shape.at(2) / 2) * (shape.at(3) / 2);
    return batch * (n * c * (c / 8) * 2 + n * c * (c / 2) * 2 + n * keys * (c / 8) + n * keys * (c / 2));
  }
  if (o.name == "ham") {
    const HamOptions h = parse_ham_options(o);
    const int64_t d = c, r = h.rank > 0 ? h.rank : std::max<int64_t>(1, c / 8);
    const int64_t k = std::max(h.train_steps, h.eval_steps);
    int64_t ham = 0;
    switch (h.type) {
      case HamType::kNMF:
        // init XᵀD; per step: XᵀD, DᵀD, C(DᵀD), XC, CᵀC, D(CᵀC); final: XᵀD, DᵀD, C(DᵀD).
        ham = n * d * r + k * (2 * n * d * r + 2 * n * r * r + 2 * d * r * r) + (n * d * r + d * r * r + n * r * r);
        break;
      case HamType::kVQ:  // per step: cos(X, D), XC; final: cos(X, D)
        ham = k * 2 * n * d * r + n * d * r;
        break;
      case HamType::kCD:  // per step: X̄ᵀD, XC; final: DᵀD, DᵀX, LU of (r×r) ≈ r³/3, solve r²n
        ham = k * 2 * n * d * r + (d * r * r + d * r * n + r * r * r / 3 + r * r * n);
        break;
    }
    // Lower bread C·d per position; upper bread on the factors (W_u D: C·d·r, then (W_u D) Cᵀ: C·r·n),
    // or with CBN the reconstruction D Cᵀ (d·r·n) and the 1×1 conv (d·C·n).
    const int64_t upper = o.num_classes > 0 ? d * r * n + d * c * n : c * d * r + c * r * n;
    return batch * (n * c * d + ham + upper);
  }
  if (o.name == "ea") {
    // What forward() runs. One head: the folded maps M_k·W_q (S × C) and W_o·M_v (C × S), 2·S·C²
    // once per forward, then logits and output 2·n·S·C per sample. Several heads: q and o
    // (2·n·C²) plus the shared memories on every head (2·n·S·C), i.e. 2nC(C + S) per sample.
    const EaOptions e = parse_ea_options(o);
    const int64_t s = e.memory;
    if (e.heads == 1) return batch * 2 * n * s * c + 2 * s * c * c;
    return batch * 2 * n * c * (c + s);
  }
  return -1;  // unknown block: not counted
}

std::vector<ModuleBenchResult> bench_modules(const ModuleBenchConfig& cfg, std::ostream& log) {
  if (cfg.shape.size() != 4 || *std::min_element(cfg.shape.begin(), cfg.shape.end()) < 1)
    throw ConfigError("bench modules: --shape must be four positive integers N,C,H,W");
  const torch::Device device = resolve_device(cfg.device);
  if (cfg.clock != "wall" && cfg.clock != "cpu")
    throw ConfigError("bench modules: --clock must be wall or cpu, got '" + cfg.clock + "'");
  if (cfg.clock == "cpu" && !device.is_cpu())
    throw ConfigError("bench modules: --clock cpu measures host CPU time; use --clock wall with --device cuda");
  if (cfg.repeats < 1 || cfg.warmup < 0) throw ConfigError("bench modules: --repeats must be >= 1, --warmup >= 0");
  apply_thread_count(cfg.threads);
  std::vector<ContextOptions> specs;
  for (const auto& b : cfg.blocks) specs.push_back(block_options(b, cfg.ham));  // validate all first

  std::vector<ModuleBenchResult> results;
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& o = specs[i];
    ModuleBenchResult r;
    r.block = cfg.blocks[i];
    auto block = make_context_block(o, cfg.shape[1]);
    block->to(device);
    for (const auto& p : block->parameters()) r.params += p.numel();
    r.macs = module_macs(o, cfg.shape);
    log << "bench modules: " << block->describe() << " on " << torch::IntArrayRef(cfg.shape) << " " << device << "\n";

    auto x = torch::randn(cfg.shape, torch::TensorOptions().device(device));
    {  // inference: eval mode, no autograd
      block->eval();
      torch::NoGradGuard no_grad;
      r.fwd_ms = median_ms(cfg, device, [&] { block->forward(x); });
      PeakMemoryMeter meter(device);
      auto y = block->forward(x);
      r.peak_bytes_fwd = meter.peak_bytes();
    }
    {  // training: forward + backward w.r.t. the input and the parameters
      block->train();
      auto xg = x.clone().requires_grad_(true);
      auto grad_out = torch::randn_like(x);
      auto clear_grads = [&] {
        for (auto& p : block->parameters()) p.mutable_grad() = torch::Tensor();
        xg.mutable_grad() = torch::Tensor();
      };
      r.train_ms = median_ms(cfg, device, [&] {
        clear_grads();
        block->forward(xg).backward(grad_out);
      });
      clear_grads();  // before the meter, so freeing old gradients does not lower the baseline
      PeakMemoryMeter meter(device);
      block->forward(xg).backward(grad_out);
      r.peak_bytes_train = meter.peak_bytes();
    }
    log << "  " << r.block << ": fwd " << r.fwd_ms << " ms, train " << r.train_ms << " ms\n";
    results.push_back(r);
  }
  if (!cfg.out.empty()) {
    const auto json = bench_results_json(results);
    write_text_atomically(cfg.out, json);
  }
  return results;
}

std::string format_bench_table(const std::vector<ModuleBenchResult>& rs) {
  std::ostringstream s;
  s << std::fixed;
  s << "| block | params | MACs | memory train | memory infer | time train | time infer |\n"
    << "|---|---|---|---|---|---|---|\n";
  for (const auto& r : rs) {
    s << "| " << r.block << " | " << human(static_cast<double>(r.params)) << " | "
      << (r.macs >= 0 ? human(static_cast<double>(r.macs)) : "?") << " | " << human_bytes(r.peak_bytes_train) << " | "
      << human_bytes(r.peak_bytes_fwd) << " | " << std::setprecision(2) << r.train_ms << " ms | " << r.fwd_ms
      << " ms |\n";
  }
  const auto sa = std::find_if(rs.begin(), rs.end(), [](const auto& r) { return r.block == "sa"; });
  if (sa != rs.end()) {
    s << "\nSA / block ratios (higher: the block is cheaper than SA):\n";
    for (const auto& r : rs) {
      if (r.block == "sa" || r.block == "none") continue;
      s << std::setprecision(2) << "  " << r.block << ": train time " << sa->train_ms / r.train_ms << "x, train memory "
        << static_cast<double>(sa->peak_bytes_train) / std::max<int64_t>(1, r.peak_bytes_train) << "x, infer time "
        << sa->fwd_ms / r.fwd_ms << "x, infer memory "
        << static_cast<double>(sa->peak_bytes_fwd) / std::max<int64_t>(1, r.peak_bytes_fwd) << "x\n";
    }
  }
  return s.str();
}

std::string bench_results_json(const std::vector<ModuleBenchResult>& rs) {
  std::ostringstream s;
  s << std::setprecision(6) << "[\n";
  for (size_t i = 0; i < rs.size(); ++i) {
    const auto& r = rs[i];
    s << "  {\"block\": \"" << r.block << "\", \"params\": " << r.params << ", \"macs\": " << r.macs
      << ", \"fwd_ms\": " << r.fwd_ms << ", \"train_ms\": " << r.train_ms << ", \"peak_bytes_fwd\": " << r.peak_bytes_fwd
      << ", \"peak_bytes_train\": " << r.peak_bytes_train << "}" << (i + 1 < rs.size() ? "," : "") << "\n";
  }
  s << "]\n";
  return s.str();
}

void run_bench_modules(const ModuleBenchConfig& config, std::ostream& out) {
  auto results = bench_modules(config, out);
  out << "\n" << format_bench_table(results);
  if (!config.out.empty()) out << "\nwrote " << config.out << "\n";
}

}  // namespace hamgan
