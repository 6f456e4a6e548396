// `hamgan bench modules`: params, MACs, peak memory and time per context block (paper Table 3).
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "modules/bench_modules.h"

namespace hamgan::cli {
namespace {

struct BenchModulesArgs {
  ModuleBenchConfig config;
  std::string gradient = "one-step";
  int64_t steps = 6;
};

}  // namespace

static CommandRegistrar bench_modules_registrar("bench.modules", [](CLI::App& root) {
  auto args = std::make_shared<BenchModulesArgs>();
  auto& c = args->config;
  auto* sub = root.get_subcommand("bench")->add_subcommand(
      "modules", "Params, MACs, peak memory and time of each context block (paper Table 3)");
  add_config_file_option(sub);
  sub->add_option("--shape", c.shape, "Input N,C,H,W (paper 1,512,128,128; GAN 256,256,32,32)")
      ->delimiter(',')
      ->expected(4)
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--device", c.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  sub->add_option("--blocks", c.blocks, "Blocks to measure; ham:nmf|ham:vq|ham:cd selects the ham type")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--warmup", c.warmup, "Untimed iterations per block")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--repeats", c.repeats, "Timed iterations per block (median reported)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--threads", c.threads, "CPU threads (0: LibTorch default)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--clock", c.clock, "wall: elapsed time; cpu: process CPU time (CPU only, robust on a busy machine)")
      ->check(CLI::IsMember({"wall", "cpu"}))
      ->capture_default_str();
  sub->add_option("--out", c.out, "Write the results as JSON to this file")->capture_default_str();
  sub->add_option("--steps", args->steps, "Ham K, training and evaluation")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--rank", c.ham.rank, "Ham rank r (0: C / 8)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--gradient", args->gradient, "Ham gradient: one-step or bptt")
      ->check(CLI::IsMember({"one-step", "bptt"}))
      ->capture_default_str();
  sub->callback([args] {
    args->config.ham.train_steps = args->config.ham.eval_steps = args->steps;
    args->config.ham.gradient = parse_ham_gradient(args->gradient);
    run_bench_modules(args->config, std::cout);
  });
});

}  // namespace hamgan::cli
