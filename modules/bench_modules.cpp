// `hamgan bench modules`: Table 3 of the paper (params, MACs, memory, time) per context block.
#include "modules/bench_modules.h"

#include <time.h>

#include <algorithm>
#include <chrono>

#include "core/threads.h"
#include "core/atomic_file.h"
#include "core/device.h"
#include "core/errors.h"
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

}  // namespace

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

void run_bench_modules(const ModuleBenchConfig& config, std::ostream& out) {
  auto results = bench_modules(config, out);
  out << "\n" << format_bench_table(results);
  if (!config.out.empty()) out << "\nwrote " << config.out << "\n";
}

}  // namespace hamgan
