#pragma once
// The communicator over a c10d backend, for connect() (Gloo, NCCL) and for tests
// that hand it a stand-in backend whose work completes late or never. Includes
// c10d's headers: only core/distributed and tests include it.
//
// Two kinds of collective, as NCCL makes them differ:
// - data (gradient buckets, batch-norm statistics, buffer broadcasts): wait()
//   orders the streams and returns; on NCCL the host does not block, so a step
//   queues its work without host synchronisation;
// - control (barrier, the agreements behind any/sum, gathers): the host blocks
//   until the work is done, at most `timeout`, on every backend, then throws
//   PeerError naming the ranks that stopped answering. A barrier therefore means
//   every rank arrived, on NCCL as on Gloo.
// The group is aborted at the first fault (a stuck NCCL kernel would hold the
// streams the last checkpoint copies through) and otherwise shut down when the
// communicator goes.
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <memory>
#include <string>

#include "core/distributed/communicator.h"

namespace hamgan {

struct ProcessGroupParts {
  c10::intrusive_ptr<c10d::Backend> backend;
  c10::intrusive_ptr<c10d::Store> store;  // the heartbeats go here
  int64_t rank = 0, world_size = 1;
  torch::Device device{torch::kCPU};  // where the small control tensors live (NCCL: the rank's GPU)
  std::chrono::milliseconds timeout{600000};
  bool store_on_rank0 = false;  // rank 0 hosts the store: losing it means rank 0 is gone
  std::string rank0_address;    // MASTER_ADDR:MASTER_PORT where rank 0 hosts it, for the error
};

std::shared_ptr<Communicator> communicator_over(ProcessGroupParts parts);

}  // namespace hamgan
