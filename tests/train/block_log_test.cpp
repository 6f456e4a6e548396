// The context blocks' gates in the log: each row of a run with a block in G and D
// holds g/<block><side>/sigma and d/<block><side>/sigma, equal to the σ the
// checkpoint of that step holds (read back through `hamgan export --weights raw
// --with_d`, an independent path); a run with `none` logs no such key.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/safetensors.h"
#include "tests/common/test_util.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

nlohmann::json last_row(const std::string& log) {
  std::istringstream lines(test::file_contents(log));
  nlohmann::json last;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) last = nlohmann::json::parse(line);
  return last;
}

double tensor_value(const SafetensorsFile& f, const std::string& name) {
  for (const auto& [n, t] : f.tensors)
    if (n == name) return t.item<double>();
  ADD_FAILURE() << name << " not in the export";
  return NAN;
}

TEST(BlockLog, EveryRowHoldsEachBlocksSigmaAsTheCheckpointHoldsIt) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::temp_dir("block_log"), bin = test::hamgan_bin();
  std::string out;
  // Three steps at a learning rate that moves σ visibly from 0 in that time.
  ASSERT_EQ(test::run_command(bin + " train --run_dir " + dir + "/run --steps 3 --g_lr 0.01 "
                                  "--d_lr 0.01 --tensorboard false --threads 1" + test::tiny_cli_args() + " 2>&1",
                              &out),
            0)
      << out;
  ASSERT_EQ(test::run_command(bin + " export " + dir + "/run --weights raw --with_d --standing_stats 0 --out " + dir +
                                  "/GD.safetensors 2>&1",
                              &out),
            0)
      << out;
  const nlohmann::json row = last_row(dir + "/run/metrics.jsonl");
  ASSERT_EQ(row["step"], 3) << row.dump();
  const SafetensorsFile file = read_safetensors(dir + "/GD.safetensors");
  for (const auto& [key, tensor] : {std::pair<std::string, std::string>{"g/ham16/sigma", "G.context.sigma"},
                                    {"d/ham16/sigma", "D.context.sigma"}}) {
    ASSERT_TRUE(row.contains(key)) << row.dump();
    const double logged = row[key].get<double>(), stored = tensor_value(file, tensor);
    EXPECT_NE(stored, 0.0) << key << ": σ did not move, the comparison shows nothing";
    EXPECT_NEAR(logged, stored, 1e-8 + 1e-7 * std::fabs(stored)) << key;  // the log prints 9 digits
  }
  std::string none_args = test::tiny_cli_args();
  const std::string blocks = " --g_block ham --d_block ham --ham_rank 2";
  ASSERT_NE(none_args.find(blocks), std::string::npos) << none_args;
  none_args.replace(none_args.find(blocks), blocks.size(), " --g_block none --d_block none");
  ASSERT_EQ(test::run_command(bin + " train --run_dir " + dir + "/none --steps 1 --tensorboard false --threads 1" +
                                  none_args + " 2>&1",
                              &out),
            0)
      << out;
  EXPECT_EQ(test::file_contents(dir + "/none/metrics.jsonl").find("sigma"), std::string::npos);
}

}  // namespace
}  // namespace hamgan
