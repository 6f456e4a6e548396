#pragma once
// Helpers every test area uses: scratch directories, running commands, the CLI
// binary and the Python reference scripts.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

namespace hamgan::test {

// A fresh, empty directory $HAMGAN_TEST_TMP/<area>_<name>_<pid>. ctest runs
// every test as its own process, two at a time in CI: the pid keeps their
// directories apart even when two tests pick the same name.
inline std::string scratch_dir(const std::string& area, const std::string& name) {
  const char* base = std::getenv("HAMGAN_TEST_TMP");
  const std::filesystem::path dir = std::filesystem::path(base ? base : std::filesystem::temp_directory_path()) /
                                    (area + "_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// Runs a shell command with stderr merged into stdout; returns its exit status
// (-1 if it did not exit normally) and the output in `output` when given.
inline int run_command(const std::string& cmd, std::string* output = nullptr) {
  std::string out;
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  if (output) *output = out;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A file's bytes as they are; empty when it cannot be read.
inline std::string file_contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The `hamgan` binary ctest passes in; null when a test binary runs on its own.
inline const char* hamgan_bin() { return std::getenv("HAMGAN_BIN"); }

// Runs the hamgan binary with `args`; *status is its exit code; returns stdout and stderr.
inline std::string run_hamgan(const std::string& args, int* status) {
  std::string out;
  *status = run_command(std::string(hamgan_bin()) + " " + args, &out);
  return out;
}

// The number printed right after `label` in `text` (NaN when the label is absent).
inline double number_after(const std::string& text, const std::string& label) {
  const auto at = text.find(label);
  return at == std::string::npos ? std::numeric_limits<double>::quiet_NaN() : std::stod(text.substr(at + label.size()));
}

inline std::string python_script(const std::string& name) {
  return std::string(HAMGAN_SOURCE_DIR) + "/tests/python/" + name;
}

// scripts/test.sh installs every reference package and sets HAMGAN_REQUIRE_REFERENCES=1, so there a
// missing one (a Python other than the project's environment, say) fails the test instead of skipping it.
inline bool references_required() {
  const char* v = std::getenv("HAMGAN_REQUIRE_REFERENCES");
  return v && std::string(v) == "1";
}

}  // namespace hamgan::test

// Skips a test that runs the built binary when HAMGAN_BIN is unset (ctest sets it).
#define NEED_BIN() \
  if (!hamgan::test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN unset (run through ctest)"

// HAMGAN_PYTHON (a string literal from CMake): the Python of the project's environment (scripts/venv.sh),
// which runs every reference script.
// Skips a test whose Python reference package is missing, or fails it where references are required.
#define REFERENCE_MISSING(why)                                                                        \
  do {                                                                                               \
    if (hamgan::test::references_required()) FAIL() << why << " (HAMGAN_REQUIRE_REFERENCES=1)";       \
    GTEST_SKIP() << why;                                                                             \
  } while (0)
