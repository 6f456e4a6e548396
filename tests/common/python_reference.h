#pragma once
// Python reference scripts under tests/python (exit code 3 = package missing):
// run once per test, or once per test run into a shared cached directory.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/common/test_util.h"

namespace hamgan::test {

// Runs the project Python on tests/python/<script> <args>; returns its exit status.
inline int run_python(const std::string& script, const std::string& args) {
  std::string cmd = HAMGAN_PYTHON " " + std::string(HAMGAN_SOURCE_DIR) + "/tests/python/" + script + " " + args;
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// Runs a reference script once into a directory shared by the test processes
// (ctest starts one per test, possibly in parallel): an flock serialises them and
// a stamp newer than the script marks a finished run. Returns the script's status
// (0 ok, 3 package missing) and sets *dir.
inline int cached_reference(const std::string& script, const std::string& name, std::string* dir) {
  namespace fs = std::filesystem;
  const char* base = std::getenv("HAMGAN_TEST_TMP");
  fs::path d = fs::path(base ? base : "/tmp/hamgan_test_tmp") / ("metrics_ref_" + name);
  fs::create_directories(d.parent_path());
  *dir = d.string();
  int lock = ::open((d.string() + ".lock").c_str(), O_CREAT | O_RDWR, 0644);
  if (lock >= 0) ::flock(lock, LOCK_EX);
  const fs::path source = fs::path(HAMGAN_SOURCE_DIR) / "tests/python" / script;
  const fs::path stamp = d / ".done";
  int rc = 0;
  std::error_code ec;
  if (!fs::exists(stamp) || fs::last_write_time(stamp, ec) < fs::last_write_time(source, ec)) {
    fs::remove_all(d, ec);
    fs::create_directories(d);
    rc = run_python(script, d.string());
    if (rc == 0) std::ofstream(stamp.string()) << "ok\n";
  }
  if (lock >= 0) ::close(lock);  // releases the flock
  return rc;
}

}  // namespace hamgan::test

// Runs a reference script; skips the test when its Python package is missing.
// Like RUN_REFERENCE for a script taking only an output directory, cached (see cached_reference).
#define CACHED_REFERENCE(script, name, dir)                                                     \
  do {                                                                                           \
    int rc_ = hamgan::test::cached_reference(script, name, &(dir));                              \
    if (rc_ == 3) REFERENCE_MISSING(script << ": Python test package missing (run scripts/install_deps.sh)"); \
    ASSERT_EQ(rc_, 0) << script << " failed";                                                   \
  } while (0)

#define RUN_REFERENCE(script, args)                                                              \
  do {                                                                                           \
    int rc_ = hamgan::test::run_python(script, args);                                            \
    if (rc_ == 3) REFERENCE_MISSING(script << ": Python test package missing (run scripts/install_deps.sh)"); \
    ASSERT_EQ(rc_, 0) << script << " failed";                                                   \
  } while (0)
