// The communicator of a data-parallel job: c10d as LibTorch ships it. Gloo's
// headers come from Debian's libgloo-dev and are enabled here only
// (USE_C10D_GLOO), NCCL's where the build has CUDA.
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO
#endif
#include "core/distributed/communicator.h"
#include "core/distributed/heartbeat.h"
#include "core/distributed/nccl_version.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef HAMGAN_WITH_NCCL  // CMake sets it with the nccl.h of the NCCL LibTorch loads (cmake/TorchCudaToolkit.cmake)
#ifndef USE_C10D_NCCL
#define USE_C10D_NCCL
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define HAMGAN_HAS_NCCL 1
#endif

#include <cmath>
#include <map>

namespace hamgan {
namespace {

std::string first_line(const std::string& s) {
  const auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

class ProcessGroup final : public Communicator {
 public:
  ProcessGroup(const DistEnv& env, DistBackend backend, std::chrono::milliseconds timeout);

  int64_t rank() const override { return rank_; }
  int64_t world_size() const override { return world_size_; }
  void all_reduce_sum(torch::Tensor& t, const std::string& what) override { all_reduce_sum_async(t, what)->wait(); }
  std::unique_ptr<Pending> all_reduce_sum_async(torch::Tensor& t, const std::string& what) override;
  void broadcast(std::vector<torch::Tensor>& tensors, int64_t root, const std::string& what) override;
  std::vector<torch::Tensor> all_gather(const torch::Tensor& t, const std::string& what) override;
  void barrier(const std::string& what) override;
  bool any(bool local, const std::string& what) override;
  int64_t sum(int64_t local, const std::string& what) override;

  // Runs `fn`; a failure becomes PeerError naming the ranks that stopped answering.
  template <typename Fn>
  void guarded(const std::string& what, Fn&& fn) {
    try {
      fn();
    } catch (const PeerError&) {
      throw;
    } catch (const std::exception& e) {
      throw PeerError("distributed: rank " + std::to_string(rank_) + ": " + what + " failed: " +
                      heartbeat_->who_stopped_answering() + " (" + first_line(e.what()) + ")");
    }
  }

 private:
  int64_t rank_, world_size_;
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<c10d::Backend> group_;
  torch::Device device_{torch::kCPU};  // where small control tensors live (NCCL reduces CUDA tensors only)
  std::unique_ptr<Heartbeat> heartbeat_;  // declared last: stops first
};

ProcessGroup::ProcessGroup(const DistEnv& env, DistBackend backend, std::chrono::milliseconds timeout)
    : rank_(env.rank), world_size_(env.world_size) {
  if (backend == DistBackend::kNccl) device_ = torch::Device(torch::kCUDA, static_cast<int8_t>(env.local_rank));
  const std::string where = env.store_file.empty()
                                ? "tcp://" + env.master_addr + ":" + std::to_string(env.master_port)
                                : "file://" + env.store_file;
  bool store_on_rank0 = false;
  try {
    if (!env.store_file.empty()) {
      store_ = c10::make_intrusive<c10d::FileStore>(env.store_file, static_cast<int>(env.world_size));
    } else {
      c10d::TCPStoreOptions o;
      o.port = static_cast<uint16_t>(env.master_port);
      o.isServer = env.rank == 0 && !env.agent_store;
      o.numWorkers = static_cast<size_t>(env.world_size);
      o.timeout = timeout;
      store_ = c10::make_intrusive<c10d::TCPStore>(env.master_addr, o);
      store_on_rank0 = !env.agent_store;
    }
    store_->setTimeout(timeout);
    store_ = c10::make_intrusive<c10d::PrefixStore>("hamgan/" + std::to_string(env.restart), store_);
    auto pg_store = c10::make_intrusive<c10d::PrefixStore>("pg", store_);
    if (backend == DistBackend::kGloo) {
      auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
      opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      group_ = c10::make_intrusive<c10d::ProcessGroupGloo>(pg_store, static_cast<int>(env.rank),
                                                           static_cast<int>(env.world_size), opts);
    } else {
#ifdef HAMGAN_HAS_NCCL
      require_matching_nccl(nccl_header_version(), nccl_loaded_version());
      auto opts = c10d::ProcessGroupNCCL::Options::create();
      opts->timeout = timeout;
      group_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(pg_store, static_cast<int>(env.rank),
                                                           static_cast<int>(env.world_size), opts);
#else
      require_matching_nccl(nccl_header_version(), nccl_loaded_version());  // names a NCCL compiled out
      throw ConfigError("dist_backend: this build has no NCCL (LibTorch without CUDA, or HAMGAN_WITH_NCCL=OFF); "
                        "use dist_backend = \"gloo\"");
#endif
    }
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    throw PeerError("distributed: rank " + std::to_string(env.rank) + " of " + std::to_string(env.world_size) +
                    " could not join the job through " + where + " within " +
                    std::to_string(timeout.count() / 1000) + " s (" + first_line(e.what()) +
                    "); check MASTER_ADDR/MASTER_PORT and that every rank was started");
  }
  heartbeat_ = std::make_unique<Heartbeat>(store_, env.rank, env.world_size, store_on_rank0);
}

class PendingWork final : public Communicator::Pending {
 public:
  PendingWork(ProcessGroup& group, c10::intrusive_ptr<c10d::Work> w, std::string what)
      : group_(group), work_(std::move(w)), what_(std::move(what)) {}
  void wait() override {
    group_.guarded(what_, [&] { work_->wait(); });
  }

 private:
  ProcessGroup& group_;
  c10::intrusive_ptr<c10d::Work> work_;
  std::string what_;
};

std::unique_ptr<Communicator::Pending> ProcessGroup::all_reduce_sum_async(torch::Tensor& t, const std::string& what) {
  c10::intrusive_ptr<c10d::Work> work;
  guarded(what, [&] {
    std::vector<at::Tensor> ts{t};
    work = group_->allreduce(ts);
  });
  return std::make_unique<PendingWork>(*this, std::move(work), what);
}

void ProcessGroup::broadcast(std::vector<torch::Tensor>& tensors, int64_t root, const std::string& what) {
  // One collective per dtype and device: the tensors are flattened into one
  // buffer, broadcast, and copied back in place.
  std::map<std::pair<c10::ScalarType, std::string>, std::vector<torch::Tensor*>> groups;
  for (auto& t : tensors) groups[{t.scalar_type(), t.device().str()}].push_back(&t);
  torch::NoGradGuard no_grad;
  for (auto& [key, members] : groups) {
    std::vector<torch::Tensor> parts;
    for (auto* t : members) parts.push_back(t->reshape(-1));
    std::vector<at::Tensor> flat{torch::cat(parts)};
    guarded(what, [&] {
      c10d::BroadcastOptions o;
      o.rootRank = root;
      group_->broadcast(flat, o)->wait();
    });
    int64_t at = 0;
    for (auto* t : members) {
      t->copy_(flat[0].narrow(0, at, t->numel()).view_as(*t));
      at += t->numel();
    }
  }
}

std::vector<torch::Tensor> ProcessGroup::all_gather(const torch::Tensor& t, const std::string& what) {
  const torch::Tensor in_dev = t.to(device_).contiguous();  // NCCL gathers CUDA tensors only
  std::vector<std::vector<at::Tensor>> out(1);
  for (int64_t r = 0; r < world_size_; ++r) out[0].push_back(torch::empty_like(in_dev));
  guarded(what, [&] {
    std::vector<at::Tensor> in{in_dev};
    group_->allgather(out, in)->wait();
  });
  for (auto& o : out[0]) o = o.to(t.device());
  return out[0];
}

void ProcessGroup::barrier(const std::string& what) {
  // An all-reduce rather than c10d's barrier: it honours the same timeout on both backends.
  torch::Tensor t = torch::zeros({1}, torch::TensorOptions(device_));
  all_reduce_sum(t, what);
}

bool ProcessGroup::any(bool local, const std::string& what) {
  torch::Tensor t = torch::full({1}, local ? 1.0f : 0.0f, torch::TensorOptions(device_));
  all_reduce_sum(t, what);
  return t.item<float>() > 0;
}

int64_t ProcessGroup::sum(int64_t local, const std::string& what) {
  torch::Tensor t = torch::full({1}, static_cast<double>(local), torch::TensorOptions(device_).dtype(torch::kDouble));
  all_reduce_sum(t, what);
  return static_cast<int64_t>(std::llround(t.item<double>()));
}

}  // namespace

std::shared_ptr<Communicator> Communicator::connect(const DistEnv& env, DistBackend backend,
                                                    std::chrono::milliseconds timeout) {
  return std::make_shared<ProcessGroup>(env, backend, timeout);
}

}  // namespace hamgan
