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
};

struct DataInfo {
  std::string description;
  int64_t count = 0, height = 0, width = 0, channels = 0, num_classes = 0;
  std::vector<int64_t> per_class;  // examples per class index
};

// Gathers the facts (reads labels, not pixels), writes the grid and prints a
// summary to stdout.
DataInfo data_info(const DataInfoConfig& config);

}  // namespace hamgan
