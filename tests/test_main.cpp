// Shared GoogleTest main: progress bars off so test logs stay readable, and a
// scratch directory next to the test binary unless HAMGAN_TEST_TMP names one.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>

#include "core/progress.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  hamgan::ProgressBar::set_enabled(false);
  torch::set_num_threads(2);
  if (std::getenv("HAMGAN_TEST_TMP") == nullptr) {
    std::error_code ec;
    const auto exe = std::filesystem::canonical("/proc/self/exe", ec);
    const auto tmp = (ec ? std::filesystem::temp_directory_path() : exe.parent_path()) / "test_tmp";
    std::filesystem::create_directories(tmp, ec);
    setenv("HAMGAN_TEST_TMP", tmp.c_str(), 0);
  }
  return RUN_ALL_TESTS();
}
