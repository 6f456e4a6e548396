#include "data/data_info.h"

#include <algorithm>
#include <iostream>

#include "core/errors.h"
#include "data/image_io.h"

namespace hamgan {

DataInfo data_info(const DataInfoConfig& config) {
  if (config.per_class < 1 || config.max_classes < 1)
    throw ConfigError("data-info: per_class and max_classes must be >= 1");
  auto ds = open_dataset(config.source);
  DataInfo info;
  info.description = ds->describe();
  info.count = ds->size();
  info.height = ds->height();
  info.width = ds->width();
  info.channels = ds->channels();
  info.num_classes = ds->num_classes();
  info.per_class.assign(info.num_classes, 0);
  const int64_t rows = std::min(config.max_classes, info.num_classes);
  std::vector<std::vector<int64_t>> examples(rows);  // first per_class indices of each shown class
  for (int64_t i = 0; i < info.count; ++i) {
    const int64_t l = ds->label(i);
    if (l < 0 || l >= info.num_classes)
      throw DataError(info.description + ": label " + std::to_string(l) + " of example " + std::to_string(i) +
                      " is outside [0, " + std::to_string(info.num_classes) + ")");
    ++info.per_class[l];
    if (l < rows && int64_t(examples[l].size()) < config.per_class) examples[l].push_back(i);
  }

  std::cout << info.description << "\n"
            << "  images:   " << info.count << "\n"
            << "  size:     " << info.height << "x" << info.width << "\n"
            << "  channels: " << info.channels << "\n"
            << "  classes:  " << info.num_classes << "\n"
            << "  per class:";
  const int64_t listed = std::min(info.num_classes, kListedClasses);
  for (int64_t k = 0; k < listed; ++k) {
    if (k % 10 == 0) std::cout << "\n    " << k << ":";
    std::cout << " " << info.per_class[k];
  }
  std::cout << "\n";
  if (listed < info.num_classes) {  // a stray huge label would otherwise print a line per ten classes
    int64_t holding = 0, largest = 0;
    for (int64_t k = listed; k < info.num_classes; ++k)
      if (info.per_class[k] > 0) ++holding, largest = k;
    std::cout << "    ... " << info.num_classes - listed << " more classes not listed (" << holding
              << " of them hold images" << (holding ? "; the largest label is " + std::to_string(largest) : "")
              << ")\n";
  }
  if (config.check) {
    info.integrity = ds->check_integrity();
    if (!info.integrity.empty()) std::cout << "  checksums: " << info.integrity << "\n";
  }

  if (!config.grid.empty()) {
    // Row r holds class r's first examples; missing ones stay black.
    auto grid = torch::zeros({rows * config.per_class, info.channels, info.height, info.width}, torch::kUInt8);
    for (int64_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < examples[r].size(); ++j) grid[r * config.per_class + j].copy_(ds->get(examples[r][j]).image);
    save_png_grid(grid, config.grid, config.per_class, 2, 0);
    std::cout << "  grid:     " << config.grid << " (a row per class, first " << rows << " classes)\n";
  }
  return info;
}

}  // namespace hamgan
