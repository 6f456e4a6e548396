// `hamgan bench order`: class diversity per batch and the correlation of
// neighbouring batches under chunk windows of several sizes and a full shuffle.
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "data/order_stats.h"

namespace hamgan::cli {
static CommandRegistrar bench_order_registrar("bench.order", [](CLI::App& root) {
  using C = OrderStatsConfig;
  auto cfg = std::make_shared<C>();
  auto* sub = root.get_subcommand("bench")->add_subcommand(
      "order", "Randomness of batches under chunk windows (a dataset's labels, or an ImageNet-sized layout)");
  add_config_file_option(sub);
  const FieldTable<C> fields = {
      member_field(string_field("input", "Dataset whose labels and chunks to use; empty: synthetic labels"), &C::input),
      member_field(int_field("classes", "Synthetic: classes", between(1, 1e6)), &C::classes),
      member_field(int_field("per_class", "Synthetic: examples per class", between(1, 1e6)), &C::per_class),
      member_field(flag_field("class_sorted", "Synthetic: labels in class order (default: on)", "shuffled"),
                   &C::class_sorted),
      member_field(int_field("chunk_rows", "Synthetic: examples per chunk", at_least(1)), &C::chunk_rows),
      member_field(int_field("batch_size", "Global batch", at_least(1)), &C::batch_size),
      member_field(int_field("shards", "Ranks (rank 0 is measured)", at_least(1)), &C::shards),
      member_field(string_field("windows", "Comma-separated chunk windows; 0: full shuffle"), &C::windows),
      member_field(int_field("epochs", "Epochs measured", between(1, 100)), &C::epochs),
      member_field(string_field("out", "Write the result as JSON to this file"), &C::out),
  };
  add_field_options(sub, fields, *cfg, "Options");
  on_run(sub, [cfg] { run_order_stats(*cfg); });
});
}  // namespace hamgan::cli
