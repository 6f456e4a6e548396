// `hamgan bench train`: it/s, img/s, peak memory and per-phase step time of a training config.
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "cli/model_options.h"
#include "core/build_info.h"
#include "core/errors.h"
#include "gan/train/train_bench.h"

namespace hamgan::cli {
namespace {

struct BenchTrainArgs {
  TrainBenchConfig bench;
  int64_t batch = 0;  // 0: the config's batch_size
};

// A config file's `steps` is the length of a training run, not of a benchmark:
// the timed step count comes from the command line alone.
bool given_on_command_line(const std::string& name) {
  const auto& argv = command_arguments();
  return std::any_of(argv.begin(), argv.end(),
                     [&](const std::string& a) { return a == name || a.rfind(name + "=", 0) == 0; });
}

FieldTable<TrainConfig> train_fields_without(const std::string& key) {
  FieldTable<TrainConfig> fields;
  for (const auto& f : train_config_fields())
    if (f.spec.key != key) fields.push_back(f);
  return fields;
}

}  // namespace

static CommandRegistrar bench_train_registrar("bench.train", [](CLI::App& root) {
  auto args = std::make_shared<BenchTrainArgs>();
  auto* sub = root.get_subcommand("bench")->add_subcommand(
      "train", "Training speed of a config: it/s, img/s, peak memory, time per step phase (D, G, EMA)");
  add_config_file_option(sub);
  add_model_options(sub, args->bench.train.model);
  add_field_options(sub, train_fields_without("steps"), args->bench.train, "Training", {"run_dir"});
  sub->add_option("--steps", args->bench.steps, "Timed steps (command line only; a config's steps is ignored)")
      ->capture_default_str();
  sub->add_option("--warmup", args->bench.warmup, "Untimed steps first")->capture_default_str();
  sub->add_option("--batch", args->batch, "Images per D and G update (default: the config's batch_size)");
  sub->add_option("--out", args->bench.out, "Write the result as JSON to this file");
  sub->callback([args] {
    auto& b = args->bench;
    if (!given_on_command_line("--steps")) b.steps = TrainBenchConfig{}.steps;
    if (args->batch < 0) throw ConfigError("bench train: --batch must be >= 1, got " + std::to_string(args->batch));
    if (args->batch > 0) b.train.batch_size = args->batch;
    run_train_bench(b, std::cout);
  });
});

}  // namespace hamgan::cli
