// `hamgan bench train`: it/s, img/s, peak memory and per-phase step time of a training config.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "cli/model_options.h"
#include "gan/train/train_bench.h"

namespace hamgan::cli {
namespace {

FieldTable<TrainConfig> train_fields_without(const std::string& key) {
  FieldTable<TrainConfig> fields;
  for (const auto& f : train_config_fields())
    if (f.spec.key != key) fields.push_back(f);
  return fields;
}

FieldTable<TrainBenchConfig> bench_fields() {
  using B = TrainBenchConfig;
  return {
      member_field(int_field("steps", "Timed steps (command line only; a config's steps is ignored)", at_least(0)),
                   &B::steps),
      member_field(int_field("warmup", "Untimed steps first", at_least(0)), &B::warmup),
      member_field(string_field("out", "Write the result as JSON to this file"), &B::out),
      member_field(flag_field("profile", "Count ATen kernels, host synchronisations, memory-bound bytes and "
                                         "float32<->bf16 activation casts per step phase"),
                   &B::profile),
  };
}

}  // namespace

static CommandRegistrar bench_train_registrar("bench.train", [](CLI::App& root) {
  auto bench = std::make_shared<TrainBenchConfig>();
  auto* sub = root.get_subcommand("bench")->add_subcommand(
      "train", "Training speed of a config: it/s, img/s, peak memory, time per step phase (D, G, EMA)");
  add_config_file_option(sub);
  add_model_options(sub, bench->train.model);
  add_field_options(sub, train_fields_without("steps"), bench->train, "Training", {"run_dir"});
  add_field_options(sub, bench_fields(), *bench, "Benchmark");
  // A config file's `steps` is the length of a training run, not of a benchmark.
  command_line_only(sub, "steps");
  auto batch = std::make_shared<int64_t>(0);  // applied after the config file's batch_size
  add_field_option(
      sub, int_field("batch", "Images per D and G update (0: the config's batch_size)", at_least(0)),
      [batch](const std::string& value) { parse_value(value, *batch); }, "0", "Benchmark");
  on_run(sub, [bench, batch] {
    if (*batch > 0) bench->train.batch_size = *batch;
    run_train_bench(*bench, std::cout);
  });
});

}  // namespace hamgan::cli
