// `hamgan bench modules`: params, MACs, peak memory and time per context block (paper Table 3).
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "modules/bench_modules.h"

namespace hamgan::cli {
namespace {

// N,C,H,W: four positive integers.
std::string shape_problem(const std::string& value) {
  const auto items = split_list(value);
  bool ok = items.size() == 4;
  for (const auto& item : items) ok = ok && !item.empty() && item.find_first_not_of("0123456789") == std::string::npos &&
                                      item.find_first_not_of('0') != std::string::npos && item.size() < 12;
  return ok ? "" : "must be four positive integers N,C,H,W";
}

FieldTable<ModuleBenchConfig> bench_modules_fields() {
  using C = ModuleBenchConfig;
  FieldSpec shape = list_field("shape", {}, "Input N,C,H,W (paper 1,512,128,128; GAN 256,256,32,32)");
  shape.check = shape_problem;
  return {
      make_field<C>(shape,
                    [](const C& c) {
                      std::vector<std::string> items;
                      for (int64_t v : c.shape) items.push_back(std::to_string(v));
                      return join_list(items);
                    },
                    [](C& c, const std::string& s) {
                      c.shape.clear();
                      for (const auto& item : split_list(s)) c.shape.push_back(std::stoll(item));
                    }),
      member_field(string_field("device", "auto, cpu, cuda or cuda:N"), &C::device),
      member_field(list_field("blocks", {}, "Blocks to measure; ham:nmf|ham:vq|ham:cd selects the ham type"),
                   &C::blocks),
      member_field(int_field("warmup", "Untimed iterations per block", at_least(0)), &C::warmup),
      member_field(int_field("repeats", "Timed iterations per block (median reported)", at_least(1)), &C::repeats),
      member_field(int_field("threads", "CPU threads (0: LibTorch default)", at_least(0)), &C::threads),
      member_field(choice_field("clock", {"wall", "cpu"},
                                "wall: elapsed time; cpu: process CPU time (CPU only, robust on a busy machine)"),
                   &C::clock),
      member_field(string_field("out", "Write the results as JSON to this file"), &C::out),
      // Ham K for training and evaluation alike.
      make_field<C>(int_field("steps", "Ham K, training and evaluation", at_least(1)),
                    [](const C& c) { return format_value(c.ham.train_steps); },
                    [](C& c, const std::string& s) {
                      parse_value(s, c.ham.train_steps);
                      c.ham.eval_steps = c.ham.train_steps;
                    }),
      make_field<C>(int_field("rank", "Ham rank r (0: C / 8)", at_least(0)),
                    [](const C& c) { return format_value(c.ham.rank); },
                    [](C& c, const std::string& s) { parse_value(s, c.ham.rank); }),
      make_field<C>(choice_field("gradient", ham_gradient_names().names(), "Ham gradient: one-step or bptt"),
                    [](const C& c) { return to_string(c.ham.gradient); },
                    [](C& c, const std::string& s) { c.ham.gradient = parse_ham_gradient(s); }),
  };
}

}  // namespace

static CommandRegistrar bench_modules_registrar("bench.modules", [](CLI::App& root) {
  auto cfg = std::make_shared<ModuleBenchConfig>();
  auto* sub = root.get_subcommand("bench")->add_subcommand(
      "modules", "Params, MACs, peak memory and time of each context block (paper Table 3)");
  add_config_file_option(sub);
  add_field_options(sub, bench_modules_fields(), *cfg, "Options");
  on_run(sub, [cfg] { run_bench_modules(*cfg, std::cout); });
});

}  // namespace hamgan::cli
