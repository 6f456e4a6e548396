#pragma once
// Shared helpers for the metrics tests: a fresh temporary directory and the
// Python reference scripts under tests/python (exit code 3 = package missing).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace hamgan::test {

inline std::string temp_dir(const std::string& name) {
  const char* base = std::getenv("HAMGAN_TEST_TMP");
  std::filesystem::path dir = std::filesystem::path(base ? base : "/tmp/hamgan_test_tmp") / ("metrics_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// Runs python3 tests/python/<script> <args>; returns its exit status.
inline int run_python(const std::string& script, const std::string& args) {
  std::string cmd = "python3 " + std::string(HAMGAN_SOURCE_DIR) + "/tests/python/" + script + " " + args;
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace hamgan::test

// Runs a reference script; skips the test when its Python package is missing.
#define RUN_REFERENCE(script, args)                                                              \
  do {                                                                                           \
    int rc_ = hamgan::test::run_python(script, args);                                            \
    if (rc_ == 3) GTEST_SKIP() << script << ": Python test package missing (run scripts/install_deps.sh)"; \
    ASSERT_EQ(rc_, 0) << script << " failed";                                                   \
  } while (0)
