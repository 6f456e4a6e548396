// NCCL's semantics on a CPU machine: a stand-in c10d backend whose work completes
// late or never, and whose wait() returns at once as NCCL's does (the host never
// blocks in it). Control collectives must then still block until done, at most
// the timeout, and name the silent rank; gradient buckets must stay asynchronous;
// the group is shut down at the end, or aborted after a fault.
#include <gtest/gtest.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include <atomic>
#include <functional>
#include <chrono>

#include "core/distributed/heartbeat.h"
#include "core/distributed/process_group.h"

namespace hamgan {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

class LateWork : public c10d::Work {
 public:
  explicit LateWork(Clock::time_point done_at) : done_at_(done_at) {}
  bool isCompleted() override { return Clock::now() >= done_at_; }
  bool wait(milliseconds) override { return true; }  // as NCCL: orders streams, never blocks the host
  std::exception_ptr exception() const override { return nullptr; }

 private:
  Clock::time_point done_at_;
};

// Rank `rank` of two whose peer answers after `delay`, or never.
class SilentPeerBackend : public c10d::Backend {
 public:
  SilentPeerBackend(int rank, milliseconds delay, bool never) : Backend(rank, 2), delay_(delay), never_(never) {}
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>&, const c10d::AllreduceOptions&) override {
    return work();
  }
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>&, std::vector<at::Tensor>&,
                                          const c10d::AllgatherOptions&) override {
    return work();
  }
  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>&, const c10d::BroadcastOptions&) override {
    return work();
  }
  void abort() override { aborted->store(true); }
  void shutdown() override { shut_down->store(true); }
  std::shared_ptr<std::atomic<bool>> aborted = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<bool>> shut_down = std::make_shared<std::atomic<bool>>(false);

 private:
  c10::intrusive_ptr<c10d::Work> work() {
    return c10::make_intrusive<LateWork>(never_ ? Clock::time_point::max() : Clock::now() + delay_);
  }
  milliseconds delay_;
  bool never_;
};

struct Job {
  std::shared_ptr<Communicator> comm;
  c10::intrusive_ptr<SilentPeerBackend> backend;
  c10::intrusive_ptr<c10d::Store> store;
};

Job job(milliseconds delay, bool never, milliseconds timeout) {
  Job j;
  j.store = c10::make_intrusive<c10d::HashStore>();
  j.backend = c10::make_intrusive<SilentPeerBackend>(0, delay, never);
  ProcessGroupParts parts;
  parts.backend = j.backend;
  parts.store = j.store;
  parts.rank = 0;
  parts.world_size = 2;
  parts.timeout = timeout;
  j.comm = communicator_over(parts);
  return j;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

TEST(ProcessGroupSemantics, ControlCollectivesWaitForLatePeers) {
  Job j = job(milliseconds(300), false, milliseconds(20000));
  auto t0 = Clock::now();
  j.comm->barrier("the barrier");
  EXPECT_GE(seconds_since(t0), 0.29);  // returned when the peer arrived, not when the work was queued
  t0 = Clock::now();
  EXPECT_TRUE(j.comm->any(true, "the stop agreement"));
  EXPECT_EQ(j.comm->sum(3, "agreeing on skipped updates"), 3);
  EXPECT_EQ(j.comm->all_gather(torch::ones({2}), "gathering").size(), 2u);
  EXPECT_GE(seconds_since(t0), 0.89);
  const auto shut_down = j.backend->shut_down, aborted = j.backend->aborted;
  j = {};
  EXPECT_TRUE(shut_down->load());  // the process group is shut down at the end
  EXPECT_FALSE(aborted->load());
}

TEST(ProcessGroupSemantics, GradientBucketsDoNotBlockTheHost) {
  Job j = job(milliseconds(0), true, milliseconds(20000));
  torch::Tensor g = torch::ones({1024});
  const auto t0 = Clock::now();
  auto pending = j.comm->all_reduce_sum_async(g, "D gradients");
  pending->wait();  // stream-ordered on NCCL: returns though the peer never answers
  // Milliseconds measured; a wait that blocked would last the 20 s timeout. Half of it leaves a loaded
  // machine's stalls room and still tells the two apart.
  EXPECT_LT(seconds_since(t0), 10.0);
}

TEST(ProcessGroupSemantics, ASilentPeerEndsEachControlCollectiveNamingIt) {
  Job j = job(milliseconds(0), true, milliseconds(300));
  // Rank 1 beat once and went silent: its stamp goes stale, so the error can name it.
  { Heartbeat peer(j.store, 1, 2, false); }
  const auto expect_named = [&](const std::function<void()>& collective, const std::string& what) {
    const auto t0 = Clock::now();
    try {
      collective();
      ADD_FAILURE() << what << " returned though rank 1 never answered";
    } catch (const PeerError& e) {
      EXPECT_EQ(std::string(e.what()), "distributed: rank 0: " + what +
                                           " failed: rank 1 stopped answering (no answer within 300 ms)");
    }
    // The 300 ms timeout plus at most one staleness window and a beat: 5.3 s, and 0.3 s each measured.
    // 30 s leaves a loaded machine room and is still a hundred times the timeout.
    EXPECT_LT(seconds_since(t0), 30.0) << what;
  };
  expect_named([&] { j.comm->barrier("the checkpoint barrier"); }, "the checkpoint barrier");
  EXPECT_TRUE(j.backend->aborted->load());  // at the fault, so the rank's streams are free for its last save
  expect_named([&] { j.comm->any(false, "the stop agreement"); }, "the stop agreement");
  expect_named([&] { j.comm->sum(1, "agreeing on skipped updates"); }, "agreeing on skipped updates");
  expect_named([&] { j.comm->all_gather(torch::ones({2}), "gathering noise states"); }, "gathering noise states");
  const auto shut_down = j.backend->shut_down, aborted = j.backend->aborted;
  j = {};
  EXPECT_FALSE(shut_down->load());  // an aborted group is never shut down (that would wait on the stuck work)
}

}  // namespace
}  // namespace hamgan
