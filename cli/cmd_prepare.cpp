// `hamgan prepare`: any supported source → HDF5 in BigGAN-PyTorch's layout.
#include <memory>

#include "cli/command.h"
#include "cli/data_options.h"
#include "data/prepare.h"

namespace hamgan::cli {
static CommandRegistrar prepare_registrar("prepare", [](CLI::App& root) {
  auto cfg = std::make_shared<PrepareConfig>();
  auto* sub = root.add_subcommand("prepare", "Convert IDX, an image folder or HDF5 to a BigGAN-layout HDF5 file");
  add_config_file_option(sub);
  sub->add_option("--input", cfg->source.path, "IDX folder, image folder (root/<class>/*.jpg|png) or .hdf5 file")
      ->capture_default_str();
  sub->add_option("--output", cfg->output, "HDF5 file to write (replaced atomically)")->required();
  add_dataset_options(sub, cfg->source);
  sub->add_option("--compression", cfg->compression, "none, gzip or lzf (as h5py and BigGAN-PyTorch write it)")
      ->check(CLI::IsMember({"none", "gzip", "lzf"}))
      ->capture_default_str();
  sub->add_option("--workers", cfg->workers, "Decoding threads")->check(CLI::Range(1, 256))->capture_default_str();
  sub->add_flag("--progress,!--no_progress", cfg->progress, "Show a progress bar (default: on)");
  sub->callback([cfg] { prepare_dataset(*cfg); });
});
}  // namespace hamgan::cli
