#pragma once
// `hamgan bench data`: loader throughput (images/s) on an HDF5 file.
#include <cstdint>
#include <string>

namespace hamgan {

struct LoaderBenchConfig {
  std::string path;            // HDF5 file; empty: a synthetic file in a temporary folder
  int64_t synthetic_count = 4000;  // images in the synthetic file
  int64_t size = 128;          // synthetic image side
  int64_t batch_size = 64;
  int64_t workers = 2;
  int64_t prefetch = 4;
  bool flip = true;
  bool in_memory = false;
  double seconds = 5.0;        // measuring time after one warm-up batch
};

struct LoaderBenchResult {
  int64_t images = 0;
  double seconds = 0, images_per_second = 0;
};

LoaderBenchResult bench_loader(const LoaderBenchConfig& config);

}  // namespace hamgan
