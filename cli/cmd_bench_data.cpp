// `hamgan bench data`: loader images/s on an HDF5 file (synthetic if none given).
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "data/loader_bench.h"

namespace hamgan::cli {
static CommandRegistrar bench_data_registrar("bench.data", [](CLI::App& root) {
  using C = LoaderBenchConfig;
  auto cfg = std::make_shared<C>();
  auto* sub = root.get_subcommand("bench")->add_subcommand("data", "Data loader throughput on an HDF5 file");
  add_config_file_option(sub);
  const FieldTable<C> fields = {
      member_field(string_field("input", "Dataset; empty: write a synthetic HDF5 file to a temporary folder"), &C::path),
      member_field(int_field("synthetic_count", "Images in the synthetic file", between(1, double(int64_t(1) << 24))),
                   &C::synthetic_count),
      member_field(int_field("size", "Synthetic image side", between(1, 1024)), &C::size),
      member_field(choice_field("format", {"hdf5", "zip"}, "Synthetic file's format"), &C::format),
      member_field(choice_field("compression", {"none", "gzip", "lzf"}, "Synthetic HDF5 file's compression"),
                   &C::compression),
      member_field(flag_field("class_sorted", "Synthetic labels in class order, as BigGAN's files (default: off)"),
                   &C::class_sorted),
      member_field(int_field("shuffle_window", "Chunks shuffled together in chunked files (0: full shuffle)",
                             at_least(0)),
                   &C::shuffle_window),
      member_field(int_field("batch_size", "Batch size", between(1, 65536)), &C::batch_size),
      member_field(int_field("workers", "Loader threads (0: on the calling thread)", between(0, 256)), &C::workers),
      member_field(int_field("prefetch", "Batches ready ahead", between(1, 256)), &C::prefetch),
      member_field(flag_field("flip", "Random horizontal flips (default: on)", "no_flip"), &C::flip),
      member_field(flag_field("in_memory", "Load the file into memory first (default: off)"), &C::in_memory),
      member_field(float_field("seconds", "Measuring time", above(0)), &C::seconds),
      member_field(string_field("out", "Write the result as JSON to this file"), &C::out),
  };
  add_field_options(sub, fields, *cfg, "Options");
  on_run(sub, [cfg] { bench_loader(*cfg); });
});
}  // namespace hamgan::cli
