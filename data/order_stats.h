#pragma once
// `hamgan bench order`: what chunk windows do to the randomness of batches,
// measured on one epoch of real labels (a dataset's) or of a synthetic layout
// the size of ImageNet, class-sorted (as BigGAN's files are) or shuffled.
#include <cstdint>
#include <string>
#include <vector>

#include "data/loader.h"

namespace hamgan {

struct OrderStatsConfig {
  std::string input;               // dataset whose labels and chunks to use; empty: synthetic
  int64_t classes = 1000, per_class = 1281;  // synthetic: about ImageNet's 1.28M images
  bool class_sorted = true;        // synthetic: labels in class order, else shuffled once
  int64_t chunk_rows = 500;        // synthetic: examples per chunk (BigGAN's)
  int64_t batch_size = 256;        // global batch
  int64_t shards = 1;              // ranks; rank 0's batches are measured
  std::string windows = "1,2,4,8,16,32,64,128,0";  // 0: full shuffle
  int64_t epochs = 1;
  uint64_t seed = 0;
  std::string out;                 // JSON file (empty: none)
};

struct OrderStatsRow {
  int64_t window = 0;
  double distinct_classes = 0;       // per batch, mean
  double neighbour_correlation = 0;  // Pearson r of consecutive batches' class counts, mean
  int64_t batches = 0;
};

// Labels, chunk rows and one row per window, rank 0's batches of `epochs` epochs.
std::vector<OrderStatsRow> order_stats(const std::vector<int64_t>& labels, int64_t num_classes,
                                       int64_t chunk_rows, const OrderStatsConfig& config);

// Before training: a ConfigError when the loader's chunk windows would give
// batches of markedly fewer classes than a full shuffle (a file stored in class
// order), naming the two ways out. Nothing to check without chunk windows.
void check_window_randomness(const Dataset& dataset, const LoaderOptions& options);

// Runs the command: prints a table and writes the JSON.
void run_order_stats(const OrderStatsConfig& config);

}  // namespace hamgan
