// `hamgan data-info SRC`: counts, sizes, classes and a PNG grid of examples.
#include <memory>

#include "cli/command.h"
#include "cli/data_options.h"
#include "cli/field_options.h"
#include "data/data_info.h"
#include "data/formats.h"

namespace hamgan::cli {
static CommandRegistrar data_info_registrar("data-info", [](CLI::App& root) {
  using C = DataInfoConfig;
  auto cfg = std::make_shared<C>();
  auto* sub = root.add_subcommand("data-info", "Print what a dataset holds and write a PNG grid of examples");
  add_config_file_option(sub);
  add_argument(sub, "src,--src", cfg->source.path, "Dataset: " + dataset_format_list(), false);
  const FieldTable<C> own = {
      member_field(string_field("grid", "PNG grid to write (a row per class); empty: none"), &C::grid),
      member_field(int_field("per_class", "Examples per row", between(1, 100)), &C::per_class),
      member_field(int_field("max_classes", "Rows (first classes)", between(1, 1000)), &C::max_classes),
      member_field(flag_field("check", "HDF5: read every chunk that carries a checksum and check it (default: on)",
                              "no_check"),
                   &C::check),
  };
  add_field_options(sub, concat_fields(nested_fields(dataset_option_fields(), &C::source), own), *cfg, "Options");
  on_run(sub, [cfg] { data_info(*cfg); });
});
}  // namespace hamgan::cli
