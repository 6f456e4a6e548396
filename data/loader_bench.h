#pragma once
// `hamgan bench data`: loader throughput (images/s) on a dataset, or on a
// synthetic file written as BigGAN's HDF5 (with the compression asked for) or a
// dataset_tool ZIP.
#include <cstdint>
#include <string>

#include "data/loader.h"

namespace hamgan {

struct LoaderBenchConfig {
  std::string path;            // dataset; empty: a synthetic HDF5 file in a temporary folder
  int64_t synthetic_count = 10000;  // images in the synthetic file
  int64_t size = 128;          // synthetic image side
  std::string format = "hdf5";        // synthetic file: hdf5 | zip (StyleGAN/EDM dataset_tool's)
  std::string compression = "none";  // synthetic HDF5 file: none | gzip | lzf
  bool class_sorted = false;   // synthetic file: labels in class order, as BigGAN's files
  int64_t batch_size = 64;
  int64_t workers = 2;
  int64_t prefetch = 4;
  int64_t shuffle_window = LoaderOptions::kDefaultShuffleWindow;
  bool flip = true;
  bool in_memory = false;
  double seconds = 5.0;        // measuring time after one warm-up batch
  std::string out;             // JSON result file (empty: none)
};

struct LoaderBenchResult {
  int64_t images = 0;
  double seconds = 0, images_per_second = 0;
  int64_t decompressions = 0;  // chunks decompressed while measuring
  int64_t peak_chunks = 0;     // most decoded chunks held at once
  uint64_t file_bytes = 0, raw_bytes = 0;
};

LoaderBenchResult bench_loader(const LoaderBenchConfig& config);

}  // namespace hamgan
