// The op counter (core/op_counter.h) counts what its definitions say: views and
// allocations are no kernels, a composite op counts through what it runs, a
// multi-tensor op counts once, `.item()`, data-dependent sizes and blocking
// host-to-device copies are host synchronisations, other threads are not watched.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>

#include "core/op_counter.h"

namespace hamgan {
namespace {

TEST(OpCounter, CountsKernelsAndHostSynchronisationsByPhase) {
  const torch::Tensor x = torch::ones({3});
  std::vector<torch::Tensor> list;
  for (int i = 0; i < 5; ++i) list.push_back(torch::zeros({4}));
  const torch::Tensor on_meta = torch::empty({3}, torch::TensorOptions().device(torch::kMeta));
  OpCounter counter(8);
  x.view({3, 1}).t().unsqueeze(0);  // views: ops, no kernels
  counter.lap(0);
  (x + x).mul_(2);  // two kernels
  counter.lap(1);
  at::_foreach_add_(list, 1.0);  // one multi-tensor kernel for five tensors
  counter.lap(2);
  EXPECT_EQ(x.sum().item<float>(), 3.0f);  // .item(): one sync
  counter.lap(3);
  EXPECT_EQ(torch::nonzero(x).size(0), 3);  // output size from the values: one sync
  counter.lap(4);
  on_meta.copy_(x);  // a blocking copy to a device
  counter.lap(5);
  on_meta.copy_(x, /*non_blocking=*/true);  // pageable memory blocks only where memory can be pinned
  counter.lap(6);
  std::thread([&] { (x + x).sum(); }).join();  // another thread: not counted
  counter.lap(7);
  const std::vector<OpCounts> c = counter.counts();
  EXPECT_GE(c[0].ops, 3);
  EXPECT_EQ(c[0].kernels, 0);
  EXPECT_EQ(c[1].kernels, 2);
  EXPECT_EQ(c[2].kernels, 1);
  EXPECT_EQ(c[2].ops, 1);
  for (size_t p : {0, 1, 2}) EXPECT_EQ(c[p].syncs, 0) << p;
  EXPECT_EQ(c[3].syncs, 1);
  EXPECT_GE(c[4].syncs, 1);
  EXPECT_EQ(c[5].syncs, 1);
  EXPECT_EQ(c[6].syncs, at::globalContext().hasCUDA() ? 1 : 0);
  EXPECT_EQ(c[7].ops, 0);
  const auto ops = counter.sync_ops();
  EXPECT_GE(ops.at("aten::_local_scalar_dense"), 1);
  EXPECT_EQ(ops.at("aten::copy_ (blocking host to device)"), 1);
}

TEST(OpCounter, RestartDropsWhatCameBeforeAndOnlyOneCounts) {
  const torch::Tensor x = torch::ones({3});
  OpCounter counter(1);
  (x + x).sum().item<float>();
  counter.restart();
  x.neg();
  counter.lap(0);
  EXPECT_EQ(counter.total().kernels, 1);
  EXPECT_EQ(counter.total().syncs, 0);
  EXPECT_TRUE(counter.sync_ops().empty());
  EXPECT_THROW(OpCounter second(1), std::exception);
}

}  // namespace
}  // namespace hamgan
