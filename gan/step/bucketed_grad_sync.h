#pragma once
// Data-parallel gradient averaging in the manner of c10d's Reducer (which
// PyTorch's DistributedDataParallel drives from Python): each watched module's
// parameters are laid out in buckets of about 25 MiB in reverse registration
// order (roughly the order backward produces them); a hook on every parameter
// copies its gradient into its bucket, and a bucket's all-reduce starts as soon
// as its last gradient arrives, in bucket order on every rank, while the
// backward pass goes on. all_reduce_grads waits for the rest and writes the
// averages back into .grad. Under gradient accumulation only the last
// micro-batch's backward pass is armed (before_backward), and its hooks add the
// sum .grad holds from the earlier ones (DDP's no_sync()).
#include <map>
#include <memory>

#include "core/distributed/communicator.h"
#include "gan/step/grad_sync.h"

namespace hamgan {

class BucketedGradSync final : public GradSync {
 public:
  explicit BucketedGradSync(std::shared_ptr<Communicator> comm, int64_t bucket_bytes = 25 << 20);
  ~BucketedGradSync() override;
  // Registers the hooks on `module`'s parameters.
  void watch(torch::nn::Module& module, const std::string& name) override;
  void before_backward(torch::nn::Module& module) override;
  void all_reduce_grads(torch::nn::Module& module) override;
  void agree_on_flag(torch::Tensor& flag) override { comm_->all_reduce_sum_async(flag, "agreeing on a non-finite update")->wait(); }
  void sum_over_ranks(torch::Tensor& t, const std::string& what) override { comm_->all_reduce_sum_async(t, what)->wait(); }

  struct Group;

 private:
  std::shared_ptr<Communicator> comm_;
  int64_t bucket_bytes_;
  std::map<const torch::nn::Module*, std::shared_ptr<Group>> groups_;
};

}  // namespace hamgan
