#pragma once
// Shared helpers for the metrics tests: a fresh temporary directory, and the
// Python reference scripts (tests/common/python_reference.h).
#include <sys/wait.h>

#include <cstdlib>
#include <map>
#include <string>

#include <torch/torch.h>

#include "metrics/npz.h"
#include "tests/common/python_reference.h"
#include "tests/common/test_util.h"

namespace hamgan::test {

inline std::string temp_dir(const std::string& name) { return scratch_dir("metrics", name); }

// A reference script's output directory and its ref.npz, run once per test run
// (cached_reference) and read once per test process; `ref` is empty when a
// Python package is missing, and a failing script fails the test.
struct NpzReference {
  std::string dir;
  NpzArrays ref;
};
inline NpzReference& npz_reference(const std::string& script, const std::string& name) {
  static std::map<std::string, NpzReference> loaded;
  auto it = loaded.find(name);
  if (it != loaded.end()) return it->second;
  NpzReference x;
  const int rc = cached_reference(script, name, &x.dir);
  if (rc == 0) x.ref = read_npz(x.dir + "/ref.npz");
  if (rc != 0 && rc != 3) ADD_FAILURE() << script << " failed";
  return loaded.emplace(name, std::move(x)).first->second;
}

// Binds `R` to the reference of `script` (npz_reference); skips the test, or fails it under
// HAMGAN_REQUIRE_REFERENCES, when the Python packages it needs are missing.
#define NEED_NPZ_REFERENCE(script, name, packages)              \
  auto& R = hamgan::test::npz_reference(script, name);          \
  if (R.ref.empty()) REFERENCE_MISSING(packages " missing (scripts/install_deps.sh)")

// The binary's exit status, standard output and standard error apart (run_hamgan merges them), through
// files in `dir`; `env` goes before the command ("VAR=value").
struct CliRun {
  int rc;
  std::string out, err;
};
inline CliRun run_cli(const std::string& args, const std::string& dir, const std::string& env = "") {
  const std::string cmd =
      env + " " + hamgan_bin() + " " + args + " > " + dir + "/out.txt 2> " + dir + "/err.txt";
  const int rc = std::system(cmd.c_str());
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, file_contents(dir + "/out.txt"), file_contents(dir + "/err.txt")};
}

inline double max_abs(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

}  // namespace hamgan::test
