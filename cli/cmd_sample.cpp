// `hamgan sample`: class-conditional samples from a checkpoint as PNG files, a grid, .npz or .hdf5.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "gan/sample/sampler.h"

namespace hamgan::cli {

static CommandRegistrar sample_registrar("sample", [](CLI::App& root) {
  auto cfg = std::make_shared<SampleConfig>();
  auto quiet = std::make_shared<bool>(false);
  SampleConfig& c = *cfg;
  auto* sub = root.add_subcommand("sample", "Generate class-conditional samples from a checkpoint (EMA weights by default)");
  add_config_file_option(sub);
  sub->add_option("--checkpoint", c.checkpoint, "Checkpoint file or run directory (its latest checkpoint)")->required();
  sub->add_option("--which", c.which, "With a run directory: its latest checkpoint, or the best one kept by evaluation")
      ->check(CLI::IsMember({"latest", "best"}))
      ->capture_default_str();
  sub->add_option("--n", c.n, "Number of images")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--out", c.out, "DIR (PNG files per class), FILE.png (grid), FILE.npz or FILE.hdf5")->required();
  sub->add_option("--class", c.class_label, "Only this class (-1: class-balanced over all)")->check(CLI::Range(-1, 1 << 30))->capture_default_str();
  sub->add_option("--truncation", c.truncation, "Truncate z to |z_i| <= T (0: off)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_flag("--grid", c.grid, "With a directory: also write grid.png");
  sub->add_option("--nrow", c.nrow, "Images per grid row (0: number of classes up to 10, else 8)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--seed", c.seed, "Seed of z")->capture_default_str();
  sub->add_flag("--raw", c.raw, "Use the raw G weights instead of the EMA");
  sub->add_option("--standing_stats", c.standing_stats, "Batches of 64 to recompute G's BN statistics over (0: stored moving averages)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--batch_size", c.batch_size, "Images per forward pass")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--device", c.device, "auto | cpu | cuda | cuda:N")->capture_default_str();
  sub->add_flag("--quiet", *quiet, "No progress bar")->configurable(false);
  sub->callback([cfg, quiet] {
    cfg->progress = !*quiet;
    const std::string done = run_sampling(*cfg);
    std::cout << "sample: " << done << "\n";
  });
});

}  // namespace hamgan::cli
