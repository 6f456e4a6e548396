// c10d as LibTorch ships it: Gloo's headers come from Debian's libgloo-dev and
// are enabled here only (USE_C10D_GLOO), NCCL's where the build has CUDA.
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO
#endif
#include "core/distributed/communicator.h"
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

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace hamgan {
namespace {

using Clock = std::chrono::system_clock;
constexpr auto kHeartbeat = std::chrono::milliseconds(1000);
constexpr auto kStaleAfter = std::chrono::milliseconds(4000);

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
}

std::string alive_key(int64_t rank) { return "hamgan/alive/" + std::to_string(rank); }

std::string first_line(const std::string& s) {
  const auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

DistBackend parse_dist_backend(const std::string& name, bool cuda_device) {
  if (name == "auto") return cuda_device ? DistBackend::kNccl : DistBackend::kGloo;
  if (name == "gloo") return DistBackend::kGloo;
  if (name == "nccl") return DistBackend::kNccl;
  throw ConfigError("dist_backend: unknown value '" + name + "'; use auto, gloo or nccl");
}

std::string dist_backend_name(DistBackend backend) { return backend == DistBackend::kNccl ? "nccl" : "gloo"; }

struct Communicator::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::Backend> group;
  bool store_on_rank0 = false;
  torch::Device device{torch::kCPU};  // where small control tensors live (NCCL reduces CUDA tensors only)
  // Heartbeats: each rank stamps its key every second, so a failed collective can name the silent ranks.
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  std::thread heartbeat;
};

Communicator::Communicator(std::unique_ptr<Impl> impl, int64_t rank, int64_t world_size, DistBackend backend)
    : impl_(std::move(impl)), rank_(rank), world_size_(world_size), backend_(backend) {}

Communicator::~Communicator() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stop = true;
  }
  impl_->cv.notify_all();
  if (impl_->heartbeat.joinable()) impl_->heartbeat.join();
}

std::shared_ptr<Communicator> Communicator::connect(const DistEnv& env, DistBackend backend,
                                                    std::chrono::milliseconds timeout) {
  auto impl = std::make_unique<Impl>();
  if (backend == DistBackend::kNccl) impl->device = torch::Device(torch::kCUDA, static_cast<int8_t>(env.local_rank));
  const std::string where = env.store_file.empty()
                                ? "tcp://" + env.master_addr + ":" + std::to_string(env.master_port)
                                : "file://" + env.store_file;
  try {
    if (!env.store_file.empty()) {
      impl->store = c10::make_intrusive<c10d::FileStore>(env.store_file, static_cast<int>(env.world_size));
    } else {
      c10d::TCPStoreOptions o;
      o.port = static_cast<uint16_t>(env.master_port);
      o.isServer = env.rank == 0 && !env.agent_store;
      o.numWorkers = static_cast<size_t>(env.world_size);
      o.timeout = timeout;
      impl->store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, o);
      impl->store_on_rank0 = !env.agent_store;
    }
    impl->store->setTimeout(timeout);
    impl->store = c10::make_intrusive<c10d::PrefixStore>("hamgan/" + std::to_string(env.restart), impl->store);
    auto pg_store = c10::make_intrusive<c10d::PrefixStore>("pg", impl->store);
    if (backend == DistBackend::kGloo) {
      auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
      opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      impl->group = c10::make_intrusive<c10d::ProcessGroupGloo>(pg_store, static_cast<int>(env.rank),
                                                                static_cast<int>(env.world_size), opts);
    } else {
#ifdef HAMGAN_HAS_NCCL
      require_matching_nccl(nccl_header_version(), nccl_loaded_version());
      auto opts = c10d::ProcessGroupNCCL::Options::create();
      opts->timeout = timeout;
      impl->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(pg_store, static_cast<int>(env.rank),
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
  Impl* raw = impl.get();
  raw->store->set(alive_key(env.rank), std::vector<uint8_t>{});  // present before the first beat
  raw->heartbeat = std::thread([raw, rank = env.rank] {
    std::unique_lock<std::mutex> lock(raw->mu);
    while (!raw->stop) {
      lock.unlock();
      try {
        const std::string t = std::to_string(now_ms());
        raw->store->set(alive_key(rank), std::vector<uint8_t>(t.begin(), t.end()));
      } catch (...) {
        // The store's host is gone: the next collective reports it.
      }
      lock.lock();
      raw->cv.wait_for(lock, kHeartbeat, [raw] { return raw->stop; });
    }
  });
  return std::shared_ptr<Communicator>(new Communicator(std::move(impl), env.rank, env.world_size, backend));
}

void Communicator::fail(const std::string& what, const std::string& cause) {
  // A peer that died a moment ago still has a fresh heartbeat: watch the
  // stamps for one staleness window before naming who stopped answering.
  std::vector<std::string> silent;
  bool store_lost = false;
  const auto give_up = std::chrono::steady_clock::now() + kStaleAfter + kHeartbeat;
  while (silent.empty() && !store_lost) {
    for (int64_t r = 0; r < world_size_ && !store_lost; ++r) {
      if (r == rank_) continue;
      try {
        impl_->store->setTimeout(std::chrono::milliseconds(2000));
        const auto v = impl_->store->get(alive_key(r));
        const std::string s(v.begin(), v.end());
        if (s.empty() || now_ms() - std::stoll(s) > kStaleAfter.count()) silent.push_back(std::to_string(r));
      } catch (...) {
        store_lost = true;
      }
    }
    if (!silent.empty() || store_lost || std::chrono::steady_clock::now() > give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  std::string who;
  if (store_lost && impl_->store_on_rank0)
    who = "rank 0 (the host of the rendezvous store) stopped answering";
  else if (!silent.empty()) {
    who = silent.size() == 1 ? "rank " + silent[0] : "ranks " + silent[0];
    for (size_t i = 1; i < silent.size(); ++i) who += ", " + silent[i];
    who += " stopped answering";
  } else
    who = "no rank missed its heartbeat (a peer failed with an error of its own, or the collectives diverged)";
  throw PeerError("distributed: rank " + std::to_string(rank_) + ": " + what + " failed: " + who + " (" +
                  first_line(cause) + ")");
}

namespace {

template <typename Fn>
void guarded(Communicator& c, const std::string& what, Fn&& fn) {
  try {
    fn();
  } catch (const PeerError&) {
    throw;
  } catch (const std::exception& e) {
    c.fail(what, e.what());
  }
}

class PendingWork final : public Communicator::Pending {
 public:
  PendingWork(Communicator& c, c10::intrusive_ptr<c10d::Work> w, std::string what)
      : comm_(c), work_(std::move(w)), what_(std::move(what)) {}
  void wait() override {
    guarded(comm_, what_, [&] { work_->wait(); });
  }

 private:
  Communicator& comm_;
  c10::intrusive_ptr<c10d::Work> work_;
  std::string what_;
};

}  // namespace

void Communicator::all_reduce_sum(torch::Tensor& t, const std::string& what) {
  all_reduce_sum_async(t, what)->wait();
}

std::unique_ptr<Communicator::Pending> Communicator::all_reduce_sum_async(torch::Tensor& t, const std::string& what) {
  c10::intrusive_ptr<c10d::Work> work;
  guarded(*this, what, [&] {
    std::vector<at::Tensor> ts{t};
    work = impl_->group->allreduce(ts);
  });
  return std::make_unique<PendingWork>(*this, std::move(work), what);
}

void Communicator::broadcast(std::vector<torch::Tensor>& tensors, int64_t root, const std::string& what) {
  // One collective per dtype and device: the tensors are flattened into one
  // buffer, broadcast, and copied back in place.
  std::map<std::pair<c10::ScalarType, std::string>, std::vector<torch::Tensor*>> groups;
  for (auto& t : tensors) groups[{t.scalar_type(), t.device().str()}].push_back(&t);
  torch::NoGradGuard no_grad;
  for (auto& [key, members] : groups) {
    std::vector<torch::Tensor> parts;
    for (auto* t : members) parts.push_back(t->reshape(-1));
    std::vector<at::Tensor> flat{torch::cat(parts)};
    guarded(*this, what, [&] {
      c10d::BroadcastOptions o;
      o.rootRank = root;
      impl_->group->broadcast(flat, o)->wait();
    });
    int64_t at = 0;
    for (auto* t : members) {
      t->copy_(flat[0].narrow(0, at, t->numel()).view_as(*t));
      at += t->numel();
    }
  }
}

std::vector<torch::Tensor> Communicator::all_gather(const torch::Tensor& t, const std::string& what) {
  const torch::Tensor in_dev = t.to(impl_->device).contiguous();  // NCCL gathers CUDA tensors only
  std::vector<std::vector<at::Tensor>> out(1);
  for (int64_t r = 0; r < world_size_; ++r) out[0].push_back(torch::empty_like(in_dev));
  guarded(*this, what, [&] {
    std::vector<at::Tensor> in{in_dev};
    impl_->group->allgather(out, in)->wait();
  });
  for (auto& o : out[0]) o = o.to(t.device());
  return out[0];
}

void Communicator::barrier(const std::string& what) {
  // An all-reduce rather than c10d's barrier: it honours the same timeout on both backends.
  torch::Tensor t = torch::zeros({1}, torch::TensorOptions(impl_->device));
  all_reduce_sum(t, what);
}

bool Communicator::any(bool local, const std::string& what) {
  torch::Tensor t = torch::full({1}, local ? 1.0f : 0.0f, torch::TensorOptions(impl_->device));
  all_reduce_sum(t, what);
  return t.item<float>() > 0;
}

namespace {

struct AllReduceSumFn : torch::autograd::Function<AllReduceSumFn> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor t, Communicator* comm) {
    ctx->saved_data["comm"] = reinterpret_cast<int64_t>(comm);
    torch::Tensor out = t.clone();
    comm->all_reduce_sum(out, "synchronised batch-norm statistics");
    return out;
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    auto* comm = reinterpret_cast<Communicator*>(ctx->saved_data["comm"].toInt());
    torch::Tensor g = grads[0].contiguous().clone();
    comm->all_reduce_sum(g, "synchronised batch-norm gradients");
    return {g, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor differentiable_all_reduce_sum(Communicator& comm, const torch::Tensor& t) {
  return AllReduceSumFn::apply(t, &comm);
}

}  // namespace hamgan
