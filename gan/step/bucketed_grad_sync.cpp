#include "gan/step/bucketed_grad_sync.h"

#include <mutex>

namespace hamgan {

struct BucketedGradSync::Group {
  struct Bucket {
    std::vector<int64_t> params;  // indices into `params`
    torch::Tensor flat;           // the bucket's gradients, flattened
    int64_t arrived = 0;
    std::unique_ptr<Communicator::Pending> pending;
  };
  Communicator* comm = nullptr;
  std::string name;
  std::vector<torch::Tensor> params;
  std::vector<std::pair<int64_t, int64_t>> place;  // per parameter: bucket, offset in its flat
  std::vector<bool> seen;                          // per parameter, in this backward pass
  std::vector<bool> used;                          // per parameter: had a gradient (others keep none, as Adam expects)
  std::vector<Bucket> buckets;
  size_t next_launch = 0;
  bool armed = false;
  std::mutex mu;  // hooks may run on autograd's device threads

  void launch_ready() {  // caller holds mu; buckets start strictly in order, the same on every rank
    while (next_launch < buckets.size() &&
           buckets[next_launch].arrived == static_cast<int64_t>(buckets[next_launch].params.size())) {
      Bucket& b = buckets[next_launch++];
      b.pending = comm->all_reduce_sum_async(b.flat, name);
    }
  }

  void arrive(int64_t i, const torch::Tensor& grad) {
    std::lock_guard<std::mutex> lock(mu);
    if (!armed || seen[i]) return;  // a backward pass we were not asked to reduce
    seen[i] = used[i] = true;
    auto [bi, offset] = place[i];
    Bucket& b = buckets[bi];
    // The hook sees this pass's gradient before autograd adds it to .grad, which
    // holds the earlier micro-batches' sum under gradient accumulation.
    const torch::Tensor& accumulated = params[i].grad();
    torch::Tensor slot = b.flat.narrow(0, offset, grad.numel());
    if (accumulated.defined())
      torch::add_out(slot, accumulated.reshape(-1), grad.reshape(-1));
    else
      slot.copy_(grad.reshape(-1));
    ++b.arrived;
    launch_ready();
  }
};

BucketedGradSync::BucketedGradSync(std::shared_ptr<Communicator> comm, int64_t bucket_bytes)
    : comm_(std::move(comm)), bucket_bytes_(bucket_bytes) {}

BucketedGradSync::~BucketedGradSync() = default;

void BucketedGradSync::watch(torch::nn::Module& module, const std::string& name) {
  auto g = std::make_shared<Group>();
  g->comm = comm_.get();
  g->name = name;
  const auto params = module.parameters();
  // Reverse registration order approximates the order backward produces gradients (DDP's heuristic).
  for (auto it = params.rbegin(); it != params.rend(); ++it) g->params.push_back(*it);
  int64_t bytes = bucket_bytes_;
  for (size_t i = 0; i < g->params.size(); ++i) {
    const torch::Tensor& p = g->params[i];
    const int64_t size = p.numel() * static_cast<int64_t>(p.element_size());
    const bool new_bucket = g->buckets.empty() || bytes + size > bucket_bytes_ ||
                            g->buckets.back().flat.scalar_type() != p.scalar_type();
    if (new_bucket) {
      g->buckets.emplace_back();
      g->buckets.back().flat = torch::zeros({0}, p.options());
      bytes = 0;
    }
    auto& b = g->buckets.back();
    g->place.emplace_back(static_cast<int64_t>(g->buckets.size()) - 1, b.flat.numel());
    b.params.push_back(static_cast<int64_t>(i));
    b.flat = torch::zeros({b.flat.numel() + p.numel()}, p.options());
    bytes += size;
  }
  g->seen.assign(g->params.size(), false);
  g->used.assign(g->params.size(), false);
  for (size_t i = 0; i < g->params.size(); ++i) {
    std::weak_ptr<Group> weak = g;
    g->params[i].register_hook([weak, i](const torch::Tensor& grad) {
      if (auto group = weak.lock()) group->arrive(static_cast<int64_t>(i), grad);
    });
  }
  groups_[&module] = std::move(g);
}

void BucketedGradSync::before_backward(torch::nn::Module& module) {
  auto it = groups_.find(&module);
  if (it == groups_.end()) return;
  Group& g = *it->second;
  std::lock_guard<std::mutex> lock(g.mu);
  for (auto& b : g.buckets) {
    b.arrived = 0;
    b.pending.reset();
  }
  std::fill(g.seen.begin(), g.seen.end(), false);
  std::fill(g.used.begin(), g.used.end(), false);
  g.next_launch = 0;
  g.armed = true;
}

void BucketedGradSync::all_reduce_grads(torch::nn::Module& module) {
  auto it = groups_.find(&module);
  if (it == groups_.end()) throw Error("data-parallel: a module that was not watched reached the gradient reduction");
  Group& g = *it->second;
  {
    std::lock_guard<std::mutex> lock(g.mu);
    if (!g.armed) throw Error("data-parallel: gradients reduced without before_backward");
    // Parameters that took no part in this backward pass contribute the gradient they
    // hold from earlier micro-batches, or zeros and then keep no gradient.
    for (size_t i = 0; i < g.params.size(); ++i)
      if (!g.seen[i]) {
        g.seen[i] = true;
        auto [bi, offset] = g.place[i];
        torch::Tensor slot = g.buckets[bi].flat.narrow(0, offset, g.params[i].numel());
        if (g.params[i].grad().defined()) {
          slot.copy_(g.params[i].grad().reshape(-1));
          g.used[i] = true;
        } else {
          slot.zero_();
        }
        ++g.buckets[bi].arrived;
      }
    g.launch_ready();
    g.armed = false;
  }
  const double inv = 1.0 / static_cast<double>(comm_->world_size());
  for (auto& b : g.buckets) {
    b.pending->wait();
    b.pending.reset();
    b.flat.mul_(inv);
    for (int64_t i : b.params) {
      if (!g.used[i]) continue;
      torch::Tensor& p = g.params[i];
      const torch::Tensor avg = b.flat.narrow(0, g.place[i].second, p.numel()).view_as(p);
      if (p.grad().defined())
        p.mutable_grad().copy_(avg);
      else
        p.mutable_grad() = avg.clone();
    }
  }
}

}  // namespace hamgan
