#pragma once
// Helpers shared by the data tests: temporary folders, raw files, the Python
// oracle (tests/python/data_oracle.py) and running the CLI.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/common/test_util.h"

namespace hamgan::test {

inline std::string fresh_dir(const std::string& name) { return scratch_dir("data", name); }

inline void write_raw(const std::string& path, const torch::Tensor& t) {
  auto c = t.contiguous();
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

inline torch::Tensor read_raw(const std::string& path, at::IntArrayRef shape, torch::Dtype dtype) {
  auto t = torch::empty(shape, dtype);
  std::ifstream in(path, std::ios::binary);
  in.read(static_cast<char*>(t.data_ptr()), t.nbytes());
  EXPECT_EQ(in.gcount(), static_cast<std::streamsize>(t.nbytes())) << path;
  return t;
}

// Image i of the chunk tests' files, uint8 (3, 4, 4): pixel (c, y, x) =
// (13·i + 5·c + 3·y + x) mod 256, so a batch's bytes say which image they are.
inline torch::Tensor pattern_image(int64_t i) {
  auto c = torch::arange(3).view({3, 1, 1}), y = torch::arange(4).view({1, 4, 1}), x = torch::arange(4).view({1, 1, 4});
  return ((13 * i + 5 * c + 3 * y + x) % 256).to(torch::kUInt8);
}

// Runs the oracle; returns its exit status (stderr goes to the test log).
inline int oracle(const std::string& args) {
  const std::string cmd = HAMGAN_PYTHON " " HAMGAN_SOURCE_DIR "/tests/python/data_oracle.py " + args;
  return WEXITSTATUS(std::system(cmd.c_str()));
}

struct CliResult {
  int status = -1;
  std::string err;
};

// Runs `hamgan <args>`, capturing stderr; skips the test without $HAMGAN_BIN.
inline CliResult run_cli(const std::string& args, const std::string& tmp) {
  CliResult r;
  const char* bin = std::getenv("HAMGAN_BIN");
  if (!bin) return r;
  const std::string err = tmp + "/cli_stderr.txt";
  r.status = WEXITSTATUS(std::system((std::string(bin) + " " + args + " >/dev/null 2>" + err).c_str()));
  std::ifstream in(err);
  r.err.assign(std::istreambuf_iterator<char>(in), {});
  return r;
}

}  // namespace hamgan::test
