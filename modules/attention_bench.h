#pragma once
// Cost of the attention blocks (SA, YLG dense-masked, YLG gather) at one
// feature-map size: median wall time per forward and per forward+backward.
#include <cstdint>
#include <ostream>
#include <string>

namespace hamgan {

struct AttentionBenchConfig {
  int64_t batch = 8;          // images per call
  int64_t channels = 256;     // C at the block (G: 256, D: 128 in the ImageNet model)
  int64_t size = 32;          // H = W of the feature map
  int64_t iters = 5;          // timed calls per variant after one warm-up call (median reported)
  std::string device = "cpu"; // auto | cpu | cuda | cuda:N (core/device.h)
  int64_t threads = 0;        // CPU threads for LibTorch; 0 keeps its default
};

// Prints one table row per variant, plus the max |dense − gather| difference.
void run_attention_bench(const AttentionBenchConfig& config, std::ostream& out);

}  // namespace hamgan
