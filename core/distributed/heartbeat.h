#pragma once
// Liveness stamps in a job's rendezvous store: a thread of each rank writes the
// time into its key every second, so that a collective that failed can name
// the ranks that stopped answering instead of reporting a bare timeout. Used by
// process_group.cpp only: it needs c10d's headers.
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace hamgan {

class Heartbeat {
 public:
  // Writes this rank's key at once (so it is present before the first beat), then every second.
  // `store_on_rank0`: rank 0 hosts the store (at `rank0_address`, MASTER_ADDR:MASTER_PORT), so
  // losing it means rank 0 is gone.
  Heartbeat(c10::intrusive_ptr<c10d::Store> store, int64_t rank, int64_t world_size, bool store_on_rank0,
            std::string rank0_address = "");
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  // After a failed collective: "rank 1 stopped answering", "ranks 1, 2 stopped
  // answering", the store's host gone, or that no rank missed its heartbeat.
  // A peer that died a moment ago still has a fresh stamp, so this watches the
  // stamps for up to one staleness window before answering.
  std::string who_stopped_answering();
  // Whether who_stopped_answering() found rank 0 silent or its store gone.
  bool rank0_lost() const { return rank0_lost_; }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
  int64_t rank_, world_size_;
  bool store_on_rank0_;
  std::string rank0_address_;
  std::atomic<bool> rank0_lost_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace hamgan
