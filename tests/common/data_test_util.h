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
