#pragma once
// Dataset options shared by the subcommands that read data (prepare,
// data-info, train, ...): everything in DatasetSpec except the path.
#include <CLI/CLI.hpp>

#include "data/dataset.h"

namespace hamgan::cli {

inline void add_dataset_options(CLI::App* sub, DatasetSpec& spec) {
  sub->add_option("--split", spec.split, "IDX split: train or test")
      ->check(CLI::IsMember({"train", "test"}))
      ->capture_default_str();
  sub->add_option("--size", spec.size, "Image side for IDX (padded) and image folders (crop+resize); HDF5 keeps its own")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  sub->add_option("--channels", spec.channels, "0: the source's own (IDX 1, folders 3, HDF5 as stored); 1 or 3 converts")
      ->check(CLI::IsMember({0, 1, 3}))
      ->capture_default_str();
  sub->add_flag("--idx_resize", spec.idx_resize,
                "IDX: resize 28x28 to --size (PIL bilinear) instead of zero-padding (default: off)");
  sub->add_flag("--in_memory", spec.in_memory, "HDF5: load the whole file into memory (default: off)");
}

}  // namespace hamgan::cli
