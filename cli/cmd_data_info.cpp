// `hamgan data-info SRC`: counts, sizes, classes and a PNG grid of examples.
#include <memory>

#include "cli/command.h"
#include "cli/data_options.h"
#include "data/data_info.h"

namespace hamgan::cli {
static CommandRegistrar data_info_registrar("data-info", [](CLI::App& root) {
  auto cfg = std::make_shared<DataInfoConfig>();
  auto* sub = root.add_subcommand("data-info", "Print what a dataset holds and write a PNG grid of examples");
  add_config_file_option(sub);
  sub->add_option("src,--src", cfg->source.path, "IDX folder, image folder or .hdf5 file")->capture_default_str();
  add_dataset_options(sub, cfg->source);
  sub->add_option("--grid", cfg->grid, "PNG grid to write (a row per class); empty: none")->capture_default_str();
  sub->add_option("--per_class", cfg->per_class, "Examples per row")->check(CLI::Range(1, 100))->capture_default_str();
  sub->add_option("--max_classes", cfg->max_classes, "Rows (first classes)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub->callback([cfg] { data_info(*cfg); });
});
}  // namespace hamgan::cli
