// Rank 0 of a job over TCP dies: rank 1 says in one line that rank 0, at
// MASTER_ADDR:MASTER_PORT, is gone or unreachable, with no c10d stack trace,
// and never counts on rank 0 to save the state (before: an 18-frame TCPStore
// trace, then "rank 0 saves the state").
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "gan/checkpoint/run_dir.h"
#include "gan/train/hooks.h"
#include "tests/common/tcp_ranks.h"

namespace hamgan {
namespace {
using Clock = std::chrono::steady_clock;

TEST(RankZeroLoss, TheOtherRankNamesItsAddressInOneLineAndPromisesNoSave) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  const std::string dir = test::temp_dir("rank0_gone"), run = dir + "/run";
  const int port = test::free_port();
  ASSERT_GT(port, 0);
  const pid_t r0 = test::start_tcp_rank(0, port, run, 10, 1000000, dir + "/rank0.log");
  const pid_t r1 = test::start_tcp_rank(1, port, run, 10, 1000000, dir + "/rank1.log");
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while (latest_checkpoint(run + "/checkpoints").empty() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (latest_checkpoint(run + "/checkpoints").empty()) {
    ::kill(r0, SIGKILL);
    ::kill(r1, SIGKILL);
    ::waitpid(r0, nullptr, 0);
    ::waitpid(r1, nullptr, 0);
    FAIL() << test::file_contents(dir + "/rank0.log") << test::file_contents(dir + "/rank1.log");
  }
  ::kill(r0, SIGKILL);
  ::waitpid(r0, nullptr, 0);
  const auto killed = Clock::now();
  int status = 0;
  ASSERT_TRUE(test::wait_for_exit(r1, std::chrono::seconds(60), &status)) << "rank 1 outlived rank 0 by 60 s";
  std::printf("rank 1 ended %.1f s after rank 0 was killed\n", test::seconds_since(killed));
  const std::string log = test::file_contents(dir + "/rank1.log");
  ASSERT_TRUE(WIFEXITED(status)) << log;
  EXPECT_EQ(WEXITSTATUS(status), 1) << log;
  EXPECT_EQ(test::count_of(log, "hamgan: error:"), 1u) << log;
  EXPECT_NE(log.find("rank 0 (127.0.0.1:" + std::to_string(port) +
                     ", the host of the rendezvous store) is gone or unreachable"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("frame #"), std::string::npos) << log;  // no c10d stack trace
  EXPECT_EQ(log.find("[c10d]"), std::string::npos) << log;
  EXPECT_EQ(log.find("rank 0 saves the state"), std::string::npos) << log;
  EXPECT_NE(log.find("last good checkpoint: " + run + "/checkpoints/step_"), std::string::npos) << log;
}

// Rank 1 of 2 whose collectives found rank 0 gone (or not).
class PeerOfRankZero final : public Communicator {
 public:
  explicit PeerOfRankZero(bool gone) : gone_(gone) {}
  int64_t rank() const override { return 1; }
  int64_t world_size() const override { return 2; }
  void all_reduce_sum(torch::Tensor&, const std::string&) override {}
  std::unique_ptr<Pending> all_reduce_sum_async(torch::Tensor& t, const std::string& w) override {
    return LocalCommunicator().all_reduce_sum_async(t, w);
  }
  void broadcast(std::vector<torch::Tensor>&, int64_t, const std::string&) override {}
  std::vector<torch::Tensor> all_gather(const torch::Tensor& t, const std::string&) override { return {t, t}; }
  void barrier(const std::string&) override {}
  bool any(bool local, const std::string&) override { return local; }
  int64_t sum(int64_t local, const std::string&) override { return 2 * local; }
  bool rank0_unreachable() const override { return gone_; }

 private:
  bool gone_;
};

// Whichever collective fails, between steps too: rank 1 names the last
// checkpoint and counts on rank 0's save only while rank 0 is not known gone.
TEST(RankZeroLoss, ARankThatLostRankZeroPointsToTheLastCheckpointOnly) {
  const std::string run = test::temp_dir("rank0_gone_save") + "/run";
  const TrainConfig cfg = test::tiny_config(run);
  TrainState state(cfg, torch::kCPU, 1, 2);
  state.step = 3;  // whole, and newer than the last checkpoint
  for (const bool gone : {true, false}) {
    RunContext context(run, 10, std::make_shared<PeerOfRankZero>(gone));
    context.last_checkpoint = run + "/checkpoints/step_0000002.pt";
    context.last_checkpoint_step = 2;
    const std::string said = save_after_failure(state, context, /*step_whole=*/true);
    EXPECT_NE(said.find("last good checkpoint: " + context.last_checkpoint), std::string::npos) << said;
    EXPECT_EQ(said.find("rank 0 saves the state") != std::string::npos, !gone) << said;
  }
  EXPECT_FALSE(std::filesystem::exists(run + "/checkpoints/step_0000003.pt"));  // rank 1 writes nothing
}

}  // namespace
}  // namespace hamgan
