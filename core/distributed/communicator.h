#pragma once
// The ranks of one job as the training code sees them. A data-parallel job
// talks through a process group on PyTorch's own distributed engine (c10d,
// process_group.cpp): ProcessGroupGloo on CPU tensors, ProcessGroupNCCL on CUDA
// tensors, rendezvous through c10d's TCPStore (rank 0 hosts it) or FileStore.
// A single process has a LocalCommunicator: rank 0 of 1, whose collectives
// return their input and cost nothing, so callers never ask which one they
// hold. The c10d headers stay inside process_group.cpp and heartbeat.h (which
// only process_group.cpp includes), so the rest of the code builds without them.
//
// Every collective of a process group waits at most `timeout`; one that fails
// (a peer died, hung or ran out of memory) throws PeerError naming the ranks
// that stopped answering, found from the heartbeats each rank writes to the
// store (heartbeat.h).
#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/distributed/dist_env.h"
#include "core/enum_names.h"
#include "core/errors.h"

namespace hamgan {

// The config's `dist_backend`: a backend, or auto (the device decides).
enum class DistBackendChoice { kAuto, kGloo, kNccl };
const EnumNames<DistBackendChoice>& dist_backend_choice_names();  // auto, gloo, nccl

enum class DistBackend { kGloo, kNccl };
const EnumNames<DistBackend>& dist_backend_names();  // gloo, nccl
// auto gives NCCL for a CUDA device, Gloo otherwise.
DistBackend resolve_dist_backend(DistBackendChoice choice, bool cuda_device);

// A collective failed: a peer exited, hung past the timeout, or the rendezvous failed.
struct PeerError : Error {
  using Error::Error;
};

class Communicator {
 public:
  // Joins the job described by `env` over c10d (blocks until every rank has
  // arrived, at most `timeout`); PeerError when the rendezvous fails. `device`
  // is this rank's: NCCL's small control tensors live there.
  // `run_dir`: the run every rank trains, part of the job's identity in the store, so that a
  // rank of another job given the same MASTER_PORT is refused (core/distributed/rendezvous.h).
  static std::shared_ptr<Communicator> connect(const DistEnv& env, DistBackend backend, torch::Device device,
                                               std::chrono::milliseconds timeout, const std::string& run_dir = "");
  Communicator() = default;
  virtual ~Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  virtual int64_t rank() const = 0;
  virtual int64_t world_size() const = 0;

  // In place on every rank, for a result the host reads next: the host waits until it is done
  // (a control collective, process_group.h); `what` names the phase in an error.
  virtual void all_reduce_sum(torch::Tensor& t, const std::string& what) = 0;
  // An all-reduce (sum) in flight, for data the device goes on with: wait() orders it before
  // later work (Gloo: the host waits; NCCL: only the stream does).
  class Pending {
   public:
    virtual ~Pending() = default;
    virtual void wait() = 0;
  };
  virtual std::unique_ptr<Pending> all_reduce_sum_async(torch::Tensor& t, const std::string& what) = 0;
  // `root`'s values of `tensors`, written in place (one collective per dtype and device).
  virtual void broadcast(std::vector<torch::Tensor>& tensors, int64_t root, const std::string& what) = 0;
  // Every rank's `t` (same shape on all), in rank order.
  virtual std::vector<torch::Tensor> all_gather(const torch::Tensor& t, const std::string& what) = 0;
  virtual void barrier(const std::string& what) = 0;
  virtual bool any(bool local, const std::string& what) = 0;         // true when `local` is true on some rank
  virtual int64_t sum(int64_t local, const std::string& what) = 0;   // `local` summed over the ranks
  // True once a collective failed because rank 0 is gone or unreachable: whatever
  // rank 0 would save after the failure will not come.
  virtual bool rank0_unreachable() const { return false; }
};

// A single process: rank 0 of 1. Every collective leaves its input as it is,
// without a copy, a device sync or a host read.
class LocalCommunicator final : public Communicator {
 public:
  int64_t rank() const override { return 0; }
  int64_t world_size() const override { return 1; }
  void all_reduce_sum(torch::Tensor&, const std::string&) override {}
  std::unique_ptr<Pending> all_reduce_sum_async(torch::Tensor&, const std::string&) override;
  void broadcast(std::vector<torch::Tensor>&, int64_t, const std::string&) override {}
  std::vector<torch::Tensor> all_gather(const torch::Tensor& t, const std::string&) override { return {t}; }
  void barrier(const std::string&) override {}
  bool any(bool local, const std::string&) override { return local; }
  int64_t sum(int64_t local, const std::string&) override { return local; }
};

// Sum over ranks of `t` that autograd sees through: the gradient of each rank's
// input is the sum of every rank's output gradient (as SyncBatchNorm's backward).
torch::Tensor differentiable_all_reduce_sum(Communicator& comm, const torch::Tensor& t);

}  // namespace hamgan
