// `hamgan bench fid` end to end through the binary: a tiny generator and the
// untrained classifier keep it to about a second on a CPU; the JSON is read
// back with nlohmann's parser, not with the code that wrote it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "tests/common/test_util.h"

namespace hamgan {
namespace {

const char* const kStages[] = {"sampling", "features", "statistics", "frechet"};

std::string bench_fid(const std::string& options) {
  return std::string(test::hamgan_bin()) +
         " bench fid --resolution 32 --g_ch 4 --z_dim 8 --num_classes 10 --ham_rank 2 --features classifier"
         " --device cpu --threads 1 " + options;
}

TEST(BenchFidCli, PrintsEveryStageAndWritesJsonWhoseTotalIsTheirSum) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::scratch_dir("metrics", "bench_fid");
  const std::string json_path = dir + "/bench.json";
  std::string out;
  // 8 images in batches of 3: the last batch is a partial one.
  ASSERT_EQ(test::run_command(bench_fid("--n 8 --batch 3 --json " + json_path), &out), 0) << out;
  for (const char* stage : kStages) EXPECT_NE(out.find(std::string("| ") + stage + " | "), std::string::npos) << out;
  EXPECT_NE(out.find("| total | "), std::string::npos) << out;

  const auto j = nlohmann::json::parse(test::file_contents(json_path));
  EXPECT_EQ(j.at("n").get<int64_t>(), 8);
  EXPECT_EQ(j.at("batch").get<int64_t>(), 3);
  EXPECT_EQ(j.at("device").get<std::string>(), "cpu");
  EXPECT_FALSE(j.at("device_name").get<std::string>().empty());
  EXPECT_FALSE(j.at("torch_version").get<std::string>().empty());
  double sum = 0;
  for (const char* stage : kStages) {
    const double s = j.at("stages_s").at(stage).get<double>();
    EXPECT_GT(s, 0.0) << stage;
    sum += s;
  }
  const double total = j.at("total_s").get<double>();
  EXPECT_NEAR(total, sum, 1e-9 * sum + 1e-12);
  EXPECT_NEAR(j.at("images_per_s").get<double>(), 8 / total, 1e-6 * 8 / total);
  EXPECT_GE(j.at("wall_s").get<double>(), total * 0.99);  // the wall clock also sees the loop overhead
  EXPECT_TRUE(std::isfinite(j.at("fid").get<double>()));
}

TEST(BenchFidCli, BadInputIsOneLineNamingTheFix) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::scratch_dir("metrics", "bench_fid_bad");
  std::string out;
  EXPECT_NE(test::run_command(bench_fid("--n 4 --reference " + dir + "/missing.npz"), &out), 0);
  EXPECT_NE(out.find("hamgan: error: bench fid: reference statistics " + dir + "/missing.npz not found; make them with "
                     "'hamgan fid-stats"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find('\n'), out.size() - 1) << out;
  // --size is the synthetic image side of --extract_only; the generator's side is --resolution.
  EXPECT_NE(test::run_command(bench_fid("--n 4 --size 64"), &out), 0);
  EXPECT_NE(out.find("--size is for --extract_only"), std::string::npos) << out;
}

}  // namespace
}  // namespace hamgan
