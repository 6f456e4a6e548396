// `hamgan bench data`: loader images/s on an HDF5 file (synthetic if none given).
#include <memory>

#include "cli/command.h"
#include "data/loader_bench.h"

namespace hamgan::cli {
static CommandRegistrar bench_data_registrar("bench.data", [](CLI::App& root) {
  auto cfg = std::make_shared<LoaderBenchConfig>();
  auto* sub = root.get_subcommand("bench")->add_subcommand("data", "Data loader throughput on an HDF5 file");
  add_config_file_option(sub);
  sub->add_option("--input", cfg->path, "HDF5 file; empty: write a synthetic one to a temporary folder")
      ->capture_default_str();
  sub->add_option("--synthetic_count", cfg->synthetic_count, "Images in the synthetic file")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 24))
      ->capture_default_str();
  sub->add_option("--size", cfg->size, "Synthetic image side")->check(CLI::Range(1, 1024))->capture_default_str();
  sub->add_option("--batch_size", cfg->batch_size, "Batch size")->check(CLI::Range(1, 65536))->capture_default_str();
  sub->add_option("--workers", cfg->workers, "Loader threads (0: on the calling thread)")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  sub->add_option("--prefetch", cfg->prefetch, "Batches ready ahead")->check(CLI::Range(1, 256))->capture_default_str();
  sub->add_flag("--flip,!--no_flip", cfg->flip, "Random horizontal flips (default: on)");
  sub->add_flag("--in_memory", cfg->in_memory, "Load the file into memory first (default: off)");
  sub->add_option("--seconds", cfg->seconds, "Measuring time")->check(CLI::PositiveNumber)->capture_default_str();
  sub->callback([cfg] { bench_loader(*cfg); });
});
}  // namespace hamgan::cli
