// The single-process communicator: rank 0 of 1, every collective the identity,
// so code written for a data-parallel job runs unchanged (and for free) alone.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/distributed/communicator.h"

namespace hamgan {
namespace {

TEST(LocalCommunicator, IsRankZeroOfOneAndLeavesEveryValueAsItIs) {
  LocalCommunicator comm;
  EXPECT_EQ(comm.rank(), 0);
  EXPECT_EQ(comm.world_size(), 1);
  torch::Tensor t = torch::arange(4, torch::kFloat);
  const torch::Tensor before = t.clone();
  comm.all_reduce_sum(t, "test");
  EXPECT_TRUE(torch::equal(t, before));
  comm.all_reduce_sum_async(t, "test")->wait();
  EXPECT_TRUE(torch::equal(t, before));
  std::vector<torch::Tensor> tensors{t};
  comm.broadcast(tensors, 0, "test");
  EXPECT_TRUE(torch::equal(tensors[0], before));
  const auto gathered = comm.all_gather(t, "test");
  ASSERT_EQ(gathered.size(), 1u);
  EXPECT_TRUE(torch::equal(gathered[0], before));
  comm.barrier("test");
  EXPECT_TRUE(comm.any(true, "test"));
  EXPECT_FALSE(comm.any(false, "test"));
  EXPECT_EQ(comm.sum(3, "test"), 3);
}

TEST(LocalCommunicator, DifferentiableAllReduceIsTheIdentityForwardAndBackward) {
  LocalCommunicator comm;
  const torch::Tensor x = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  const torch::Tensor y = differentiable_all_reduce_sum(comm, x);
  EXPECT_TRUE(torch::equal(y, x.detach()));
  (y * torch::tensor({4.0, 5.0, 6.0})).sum().backward();
  EXPECT_TRUE(torch::equal(x.grad(), torch::tensor({4.0, 5.0, 6.0})));
}

}  // namespace
}  // namespace hamgan
