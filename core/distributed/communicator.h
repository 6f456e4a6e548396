#pragma once
// One data-parallel job's process group, on PyTorch's own distributed engine
// (c10d): ProcessGroupGloo on CPU tensors, ProcessGroupNCCL on CUDA tensors,
// rendezvous through c10d's TCPStore (rank 0 hosts it) or FileStore. The
// c10d headers stay inside communicator.cpp so the rest of the code builds
// without them.
//
// Every collective waits at most `timeout`; one that fails (a peer died, hung
// or ran out of memory) throws PeerError naming the ranks that stopped
// answering, found from the heartbeats each rank writes to the store.
#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/distributed/dist_env.h"
#include "core/errors.h"

namespace hamgan {

enum class DistBackend { kGloo, kNccl };
// "gloo" / "nccl"; "auto" gives NCCL for a CUDA device, Gloo otherwise. ConfigError for others.
DistBackend parse_dist_backend(const std::string& name, bool cuda_device);
std::string dist_backend_name(DistBackend backend);

// A collective failed: a peer exited, hung past the timeout, or the rendezvous failed.
struct PeerError : Error {
  using Error::Error;
};

class Communicator {
 public:
  // Joins the job described by `env` (blocks until every rank has arrived, at most `timeout`).
  static std::shared_ptr<Communicator> connect(const DistEnv& env, DistBackend backend,
                                               std::chrono::milliseconds timeout);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int64_t rank() const { return rank_; }
  int64_t world_size() const { return world_size_; }
  DistBackend backend() const { return backend_; }

  // In place on every rank; `what` names the phase in an error ("D gradients").
  void all_reduce_sum(torch::Tensor& t, const std::string& what);
  // `root`'s values of `tensors`, written in place (one collective per dtype and device).
  void broadcast(std::vector<torch::Tensor>& tensors, int64_t root, const std::string& what);
  // Every rank's `t` (same shape on all), in rank order.
  std::vector<torch::Tensor> all_gather(const torch::Tensor& t, const std::string& what);
  void barrier(const std::string& what);
  bool any(bool local, const std::string& what);  // true when `local` is true on some rank

  // An all-reduce (sum) in flight; wait() blocks until it is done.
  class Pending {
   public:
    virtual ~Pending() = default;
    virtual void wait() = 0;
  };
  std::unique_ptr<Pending> all_reduce_sum_async(torch::Tensor& t, const std::string& what);

  // PeerError naming the ranks that stopped answering, for a collective that threw `cause`.
  [[noreturn]] void fail(const std::string& what, const std::string& cause);

 private:
  struct Impl;
  Communicator(std::unique_ptr<Impl> impl, int64_t rank, int64_t world_size, DistBackend backend);
  std::unique_ptr<Impl> impl_;
  int64_t rank_, world_size_;
  DistBackend backend_;
};

// Sum over ranks of `t` that autograd sees through: the gradient of each rank's
// input is the sum of every rank's output gradient (as SyncBatchNorm's backward).
torch::Tensor differentiable_all_reduce_sum(Communicator& comm, const torch::Tensor& t);

}  // namespace hamgan
