#pragma once
// `hamgan data-info`: what a dataset holds, plus a PNG grid of examples.
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace hamgan {

struct DataInfoConfig {
  DatasetSpec source;
  std::string grid = "data_info.png";  // PNG grid output; empty: none
  int64_t per_class = 10;              // examples per row (one row per class)
  int64_t max_classes = 10;            // rows: the first classes only
  bool check = true;                   // read every checksummed chunk (HDF5) and check it
};

// Classes listed one by one in the per-class counts; the rest are summarised.
inline constexpr int64_t kListedClasses = 1000;

struct DataInfo {
  std::string description;
  int64_t count = 0, height = 0, width = 0, channels = 0, num_classes = 0;
  std::vector<int64_t> per_class;  // examples per class index
  std::string integrity;           // Dataset::check_integrity's line ("" when none)
};

// Gathers the facts (reads labels, and pixels only to check stored checksums),
// writes the grid and prints a summary to stdout.
DataInfo data_info(const DataInfoConfig& config);

}  // namespace hamgan
