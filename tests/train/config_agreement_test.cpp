// Ranks started with different configs are refused at their start, naming the
// key (before: another g_ch crashed rank 0 inside Gloo with exit 134; another
// seed was accepted silently and the data shards stopped being disjoint).
#include <gtest/gtest.h>

#include <string>

#include "tests/common/process.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

struct RankRun {
  int status = 0;
  std::string log;
};

// Two ranks through RANK/WORLD_SIZE and a file store, rank 1 with `rank1_extra` options.
std::vector<RankRun> run_two_ranks(const std::string& name, const std::string& rank1_extra) {
  const std::string dir = test::temp_dir(name);
  std::vector<pid_t> pids;
  for (int r = 0; r < 2; ++r) {
    const std::string rs = std::to_string(r);
    pids.push_back(test::spawn_shell("env RANK=" + rs + " LOCAL_RANK=" + rs + " WORLD_SIZE=2 HAMGAN_DIST_INIT=file://" +
                                         dir + "/store " + test::hamgan_bin() + " train" + test::tiny_cli_args() +
                                         " --steps 3 --threads 1 --dist_timeout 60 --run_dir " + dir + "/run " +
                                         (r == 1 ? rank1_extra : ""),
                                     dir + "/rank" + rs + ".log"));
  }
  std::vector<RankRun> out(2);
  for (int r = 0; r < 2; ++r) {
    EXPECT_TRUE(test::wait_for_exit(pids[static_cast<size_t>(r)], std::chrono::seconds(120), &out[r].status))
        << "rank " << r << " still running";
    out[r].log = test::file_contents(dir + "/rank" + std::to_string(r) + ".log");
  }
  return out;
}

TEST(ConfigAgreement, RanksWithAnotherSeedOrArchitectureAreRefusedNamingTheKey) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  // block_resolution 8 puts the context blocks where their widths differ: other tensor shapes.
  for (const std::string key : {"seed", "block_resolution"}) {
    const auto ranks = run_two_ranks("agree_" + key, "--" + key + " 8");
    for (int r = 0; r < 2; ++r) {
      const RankRun& run = ranks[static_cast<size_t>(r)];
      ASSERT_TRUE(WIFEXITED(run.status)) << run.log;  // no abort inside the collective library
      EXPECT_EQ(WEXITSTATUS(run.status), 1) << run.log;
      EXPECT_NE(run.log.find("hamgan: error: config: `" + key + "` differs between the ranks (rank 1 against rank 0"),
                std::string::npos)
          << run.log;
      EXPECT_EQ(run.log.find("terminate called"), std::string::npos) << run.log;
      EXPECT_EQ(run.log.find("train: step"), std::string::npos) << run.log;
    }
  }
}

}  // namespace
}  // namespace hamgan
