// Shared GoogleTest main: progress bars off so test logs stay readable, and a
// scratch directory next to the test binary unless HAMGAN_TEST_TMP names one.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/progress.h"
#include "core/vector_math.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  hamgan::ProgressBar::set_enabled(false);
  at::set_num_threads(2);
  hamgan::warm_up_vector_math();  // as the binary does at start-up (core/vector_math.h)
  if (std::getenv("HAMGAN_TEST_TMP") == nullptr) {
    std::error_code ec;
    const auto exe = std::filesystem::canonical("/proc/self/exe", ec);
    const auto tmp = (ec ? std::filesystem::temp_directory_path() : exe.parent_path()) / "test_tmp";
    std::filesystem::create_directories(tmp, ec);
    setenv("HAMGAN_TEST_TMP", tmp.c_str(), 0);
  }
  return RUN_ALL_TESTS();
}
