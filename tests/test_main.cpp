// Shared GoogleTest main: progress bars off so test logs stay readable.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/progress.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  hamgan::ProgressBar::set_enabled(false);
  torch::set_num_threads(2);
  return RUN_ALL_TESTS();
}
