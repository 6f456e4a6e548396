// `hamgan bench train` through the binary ($HAMGAN_BIN), and the PyTorch reference's
// parameter counts against model-info.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

// The tiny run's keys, without `hamgan train`'s --quiet flag, on synthetic data (no dataset there).
std::string tiny_bench_args(const std::string& dir) {
  std::string args = test::tiny_cli_args();
  args.erase(args.find(" --quiet"), 8);
  return args + " --dataset " + dir + "/absent";
}

std::string run(const std::string& args, int* status) {
  std::string out;
  *status = test::run_command(std::string(test::hamgan_bin()) + " bench train" + args, &out);
  return out;
}

TEST(BenchTrainCli, WritesJsonWithPositiveConsistentPhaseTimes) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::temp_dir("bench_train"), json_path = dir + "/bench.json";
  int status = -1;
  const std::string out = run(tiny_bench_args(dir) + " --steps 2 --warmup 1 --profile --out " + json_path, &status);
  ASSERT_EQ(status, 0) << out;
  const auto j = nlohmann::ordered_json::parse(test::file_contents(json_path));  // keeps the file's order
  for (const char* key : {"device", "device_name", "torch_version", "precision", "data", "batch", "steps", "its_per_s",
                          "images_per_s", "step_ms", "peak_memory_bytes", "phase_ms", "profile"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["steps"], 2);
  EXPECT_EQ(j["batch"], 4);
  EXPECT_EQ(j["precision"], "fp32");
  EXPECT_EQ(j["data"].get<std::string>().rfind("synthetic", 0), 0u);
  EXPECT_GT(j["its_per_s"].get<double>(), 0);
  EXPECT_GT(j["peak_memory_bytes"].get<int64_t>(), 0);
  // The phases are slices of the timed steps, cut at the step functions' seam: together no longer
  // than the whole (timer overhead aside), and each one took time.
  const std::vector<std::string> phases = {"data", "d_forward", "d_backward", "d_optimiser",
                                           "g_forward", "g_backward", "g_optimiser", "ema"};
  double sum = 0;
  for (const std::string& p : phases) {
    EXPECT_GT(j["phase_ms"][p].get<double>(), 0) << p;
    sum += j["phase_ms"][p].get<double>();
  }
  EXPECT_LE(sum, j["step_ms"].get<double>() * 1.05 + 0.5);
  // The profile: every phase but the data's launches kernels, none reads the device, and the total adds up.
  const auto& profile = j["profile"];
  EXPECT_EQ(profile["steps"], 2);
  double kernels = 0;
  for (const std::string& p : phases) {
    if (p != "data") {
      EXPECT_GT(profile["kernels_per_step"][p].get<double>(), 0) << p;
    }
    EXPECT_EQ(profile["host_syncs_per_step"][p].get<double>(), 0) << p;
    kernels += profile["kernels_per_step"][p].get<double>();
  }
  EXPECT_DOUBLE_EQ(profile["kernels_per_step"]["total"].get<double>(), kernels);
  EXPECT_TRUE(profile["host_sync_ops"].empty()) << profile["host_sync_ops"].dump();
  // By op: every kernel under one name, most first; the kernels, bytes and casts add up to the totals.
  double by_op_kernels = 0, by_op_bytes = 0, by_op_casts = 0, previous = 1e300;
  for (const auto& [name, c] : profile["by_op_per_step"].items()) {
    EXPECT_EQ(name.rfind("aten::", 0), 0u) << name;
    EXPECT_LE(c["kernels"].get<double>(), previous) << name;
    previous = c["kernels"].get<double>();
    by_op_kernels += c["kernels"].get<double>();
    by_op_bytes += c["bytes"].get<double>();
    by_op_casts += c["casts"].get<double>();
  }
  EXPECT_DOUBLE_EQ(by_op_kernels, kernels);
  EXPECT_DOUBLE_EQ(by_op_bytes, profile["memory_bound_bytes_per_step"]["total"].get<double>());
  EXPECT_DOUBLE_EQ(by_op_casts, profile["activation_casts_per_step"]["total"].get<double>());
  EXPECT_GT(profile["by_op_per_step"].size(), 5u);
}

TEST(BenchTrainCli, BadInputIsOneLineError) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::temp_dir("bench_train_bad");
  for (const std::string& args : {std::string(" --config " + dir + "/missing.toml"), tiny_bench_args(dir) + " --steps 0",
                                  tiny_bench_args(dir) + " --precision fp8"}) {
    int status = 0;
    const std::string out = run(args, &status);
    EXPECT_NE(status, 0) << args;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << "\n" << out;
  }
}

TEST(BenchTrainCli, PytorchReferenceHasModelInfoParameterCounts) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::temp_dir("bench_train_py");
  for (const std::string block : {"ham", "sa"}) {
    const std::string config = dir + "/tiny_" + block + ".toml";
    std::ofstream(config) << "resolution = 32\nimage_channels = 1\nnum_classes = 10\nz_dim = 8\ng_ch = 8\nd_ch = 8\n"
                             "g_block = \"" << block << "\"\nd_block = \"" << block << "\"\nham_rank = 2\nbatch_size = 4\n";
    std::string out;
    const int status = test::run_command(HAMGAN_PYTHON " " + std::string(HAMGAN_SOURCE_DIR) +
                                             "/bench/python/train_step.py --params_only --config " + config +
                                             " --hamgan " + test::hamgan_bin(),
                                         &out);
    if (status == 3) REFERENCE_MISSING(out);
    EXPECT_EQ(status, 0) << block << ": " << out;  // the script asserts the counts itself
  }
}

}  // namespace
}  // namespace hamgan
