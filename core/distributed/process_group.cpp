// The collectives of a data-parallel job over a c10d backend (process_group.h).
#include "core/distributed/process_group.h"

#include <cmath>
#include <map>
#include <thread>

#include "core/distributed/heartbeat.h"

namespace hamgan {
namespace {

using Clock = std::chrono::steady_clock;

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string duration_text(std::chrono::milliseconds d) {
  return d.count() % 1000 == 0 ? std::to_string(d.count() / 1000) + " s" : std::to_string(d.count()) + " ms";
}

class ProcessGroup final : public Communicator {
 public:
  explicit ProcessGroup(ProcessGroupParts parts)
      : p_(std::move(parts)),
        heartbeat_(std::make_unique<Heartbeat>(p_.store, p_.rank, p_.world_size, p_.store_on_rank0,
                                               p_.rank0_address)) {}
  ~ProcessGroup() override {
    if (faulted_) return;  // aborted at the fault
    try {
      p_.backend->shutdown();
    } catch (...) {
      // Going away anyway.
    }
  }

  int64_t rank() const override { return p_.rank; }
  int64_t world_size() const override { return p_.world_size; }
  void all_reduce_sum(torch::Tensor& t, const std::string& what) override { control_sum(t, what); }
  std::unique_ptr<Pending> all_reduce_sum_async(torch::Tensor& t, const std::string& what) override;
  void broadcast(std::vector<torch::Tensor>& tensors, int64_t root, const std::string& what) override;
  std::vector<torch::Tensor> all_gather(const torch::Tensor& t, const std::string& what) override;
  void barrier(const std::string& what) override;
  bool any(bool local, const std::string& what) override;
  int64_t sum(int64_t local, const std::string& what) override;
  bool rank0_unreachable() const override { return heartbeat_->rank0_lost(); }

  // Runs `fn`; a failure becomes PeerError naming the ranks that stopped answering.
  template <typename Fn>
  void guarded(const std::string& what, Fn&& fn) {
    try {
      fn();
    } catch (const PeerError&) {
      fault();
      throw;
    } catch (const std::exception& e) {
      fault();
      throw PeerError("distributed: rank " + std::to_string(p_.rank) + ": " + what + " failed: " +
                      heartbeat_->who_stopped_answering() + " (" + first_line(e.what()) + ")");
    }
  }

 private:
  // A control collective: the host waits until `work` is done, at most the timeout.
  void wait_done(const c10::intrusive_ptr<c10d::Work>& work, const std::string& what);
  // `t` summed over the ranks in place, the host waiting until it is done.
  void control_sum(const torch::Tensor& t, const std::string& what);

  // Aborts the group at the first fault: on NCCL a collective that never
  // completes holds the streams that wait on it, so the weights could not even
  // be copied out for the last checkpoint until its kernels are aborted.
  void fault() {
    if (faulted_) return;
    faulted_ = true;
    try {
      p_.backend->abort();
    } catch (...) {
      // The fault itself is what gets reported.
    }
  }

  ProcessGroupParts p_;
  bool faulted_ = false;
  std::unique_ptr<Heartbeat> heartbeat_;  // declared last: stops first
};

class PendingWork final : public Communicator::Pending {
 public:
  PendingWork(ProcessGroup& group, c10::intrusive_ptr<c10d::Work> w, std::string what)
      : group_(group), work_(std::move(w)), what_(std::move(what)) {}
  // Gloo: blocks until done (its own timeout); NCCL: the current stream waits, the host does not.
  void wait() override {
    group_.guarded(what_, [&] { work_->wait(); });
  }

 private:
  ProcessGroup& group_;
  c10::intrusive_ptr<c10d::Work> work_;
  std::string what_;
};

void ProcessGroup::wait_done(const c10::intrusive_ptr<c10d::Work>& work, const std::string& what) {
  guarded(what, [&] {
    const auto deadline = Clock::now() + p_.timeout;
    work->wait(p_.timeout);  // Gloo blocks here; NCCL returns at once (its host never waits in wait())
    auto pause = std::chrono::microseconds(10);
    while (!work->isCompleted()) {
      if (Clock::now() > deadline) throw std::runtime_error("no answer within " + duration_text(p_.timeout));
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(2000));
    }
    if (auto failure = work->exception()) std::rethrow_exception(failure);
  });
}

std::unique_ptr<Communicator::Pending> ProcessGroup::all_reduce_sum_async(torch::Tensor& t, const std::string& what) {
  c10::intrusive_ptr<c10d::Work> work;
  guarded(what, [&] {
    std::vector<at::Tensor> ts{t};
    work = p_.backend->allreduce(ts);
  });
  return std::make_unique<PendingWork>(*this, std::move(work), what);
}

void ProcessGroup::broadcast(std::vector<torch::Tensor>& tensors, int64_t root, const std::string& what) {
  // One collective per dtype and device: the tensors are flattened into one
  // buffer, broadcast, and copied back in place (stream-ordered: data, not control).
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
      p_.backend->broadcast(flat, o)->wait();
    });
    // Back in place in one multi-tensor copy rather than one kernel per tensor.
    std::vector<at::Tensor> targets, pieces;
    int64_t at = 0;
    for (auto* t : members) {
      targets.push_back(*t);
      pieces.push_back(flat[0].narrow(0, at, t->numel()).view_as(*t));
      at += t->numel();
    }
    at::_foreach_copy_(targets, pieces);
  }
}

std::vector<torch::Tensor> ProcessGroup::all_gather(const torch::Tensor& t, const std::string& what) {
  const torch::Tensor in_dev = t.to(p_.device).contiguous();  // NCCL gathers CUDA tensors only
  std::vector<std::vector<at::Tensor>> out(1);
  for (int64_t r = 0; r < p_.world_size; ++r) out[0].push_back(torch::empty_like(in_dev));
  c10::intrusive_ptr<c10d::Work> work;
  guarded(what, [&] {
    std::vector<at::Tensor> in{in_dev};
    work = p_.backend->allgather(out, in);
  });
  wait_done(work, what);
  for (auto& o : out[0]) o = o.to(t.device());
  return out[0];
}

void ProcessGroup::control_sum(const torch::Tensor& t, const std::string& what) {
  c10::intrusive_ptr<c10d::Work> work;
  guarded(what, [&] {
    std::vector<at::Tensor> ts{t};
    work = p_.backend->allreduce(ts);
  });
  wait_done(work, what);
}

void ProcessGroup::barrier(const std::string& what) {
  // An all-reduce rather than c10d's barrier: it honours the same timeout on every backend.
  control_sum(torch::zeros({1}, torch::TensorOptions(p_.device)), what);
}

bool ProcessGroup::any(bool local, const std::string& what) {
  const torch::Tensor t = torch::full({1}, local ? 1.0f : 0.0f, torch::TensorOptions(p_.device));
  control_sum(t, what);
  return t.item<float>() > 0;
}

int64_t ProcessGroup::sum(int64_t local, const std::string& what) {
  const torch::Tensor t = torch::full({1}, static_cast<double>(local), torch::TensorOptions(p_.device).dtype(torch::kDouble));
  control_sum(t, what);
  return static_cast<int64_t>(std::llround(t.item<double>()));
}

}  // namespace

std::shared_ptr<Communicator> communicator_over(ProcessGroupParts parts) {
  return std::make_shared<ProcessGroup>(std::move(parts));
}

}  // namespace hamgan
