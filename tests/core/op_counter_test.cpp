// The op counter (core/op_counter.h) counts what its definitions say: views and
// allocations are no kernels, a composite op counts through what it runs, a
// multi-tensor op counts once, `.item()`, data-dependent sizes and blocking
// host-to-device copies are host synchronisations, other threads are not watched;
// memory traffic and casts follow core/op_traffic.h.
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

// Bytes are what the definition in core/op_traffic.h gives from the tensors' sizes: each tensor argument
// read, each result written, a written-only argument not read, matrix products left out.
TEST(OpCounter, CountsMemoryTrafficOfKernelsThatAreNotProducts) {
  constexpr int64_t kFloats = 3 * 4 * 4;  // bytes of a (3, 4) float32 tensor
  const torch::Tensor x = torch::ones({3, 4}), a = torch::ones({3, 5}), b = torch::ones({5, 4});
  torch::Tensor z = torch::zeros({3, 4});
  std::vector<torch::Tensor> list;
  for (int i = 0; i < 5; ++i) list.push_back(torch::zeros({4}));
  const torch::Tensor table = torch::ones({100, 4}), rows = torch::tensor({3, 1, 4});
  OpCounter counter(7);
  (void)(x + x);  // reads two, writes one
  counter.lap(0);
  z.add_(x);  // reads z and x, writes z
  counter.lap(1);
  z.zero_();  // writes z only
  counter.lap(2);
  (void)torch::mm(a, b);  // a matrix product: bound by arithmetic
  counter.lap(3);
  at::_foreach_add_(list, 1.0);  // reads and writes five (4,) tensors
  counter.lap(4);
  (void)x.to(torch::kBFloat16);  // reads 48 float32 bytes, writes 24 bfloat16 bytes
  counter.lap(5);
  (void)table.index_select(0, rows);  // reads the three rows it writes and the three int64 indices
  counter.lap(6);
  const std::vector<OpCounts> c = counter.counts();
  EXPECT_EQ(c[0].bytes, 3 * kFloats);
  EXPECT_EQ(c[1].bytes, 3 * kFloats);
  EXPECT_EQ(c[2].bytes, kFloats);
  EXPECT_EQ(c[3].kernels, 1);
  EXPECT_EQ(c[3].bytes, 0);
  EXPECT_EQ(c[4].bytes, 2 * 5 * 4 * 4);
  EXPECT_EQ(c[5].bytes, kFloats + kFloats / 2);
  EXPECT_EQ(c[6].bytes, 2 * kFloats + 3 * 8);
  for (const OpCounts& p : c) EXPECT_EQ(p.casts, 0);  // no activation rule given: no casts counted
}

// A cast counts when it converts an activation between float32 and bfloat16: leading dimension a
// multiple of the batch, two more dimensions larger than one, not a parameter's shape.
TEST(OpCounter, CountsActivationCastsByTheRule) {
  OpCounter counter(1);
  counter.count_activation_casts({7, {{7, 3, 3}}});
  (void)torch::ones({14, 2, 3}).to(torch::kBFloat16);               // an activation: counts
  (void)torch::ones({7, 2, 1, 3}, torch::kBFloat16).to(torch::kFloat);  // and back: counts
  (void)torch::ones({7, 3, 3}).to(torch::kBFloat16);                // a parameter's shape
  (void)torch::ones({4, 7, 7}).to(torch::kBFloat16);                // leading dimension not a multiple of 7
  (void)torch::ones({7, 5, 1, 1}).to(torch::kBFloat16);             // a vector per sample
  (void)torch::ones({7}).to(torch::kBFloat16);                      // statistics
  (void)torch::ones({7, 2, 2}).to(torch::kHalf);                    // not bfloat16
  (void)torch::ones({7, 2, 2}).to(torch::kDouble);
  torch::Tensor into = torch::empty({7, 2, 2}, torch::kBFloat16);
  into.copy_(torch::ones({7, 2, 2}));  // copy_ between the two dtypes: counts
  counter.lap(0);
  EXPECT_EQ(counter.total().casts, 3);
}

// Per-sample bytes are those of tensors whose first dimension is a multiple of the batch and whose shape
// is no parameter's: what each image adds, whatever the weights move.
TEST(OpCounter, CountsTheBytesOfTensorsThatGrowWithTheBatch) {
  const torch::Tensor maps = torch::ones({14, 2}), weight = torch::ones({7, 3}), small = torch::ones({3, 4});
  OpCounter counter(3);
  counter.count_activation_casts({7, {{7, 3}}});
  (void)(maps + maps);  // 3 × 112 bytes, all per sample
  counter.lap(0);
  (void)(weight * 2.0 + small.sum());  // a parameter's shape and a (3, 4) tensor: none per sample
  counter.lap(1);
  (void)(maps * maps.select(1, 0).unsqueeze(1));  // (14, 2) and (14, 1): per sample
  counter.lap(2);
  const std::vector<OpCounts> c = counter.counts();
  EXPECT_EQ(c[0].per_sample_bytes, 3 * 14 * 2 * 4);
  EXPECT_EQ(c[0].per_sample_bytes, c[0].bytes);
  EXPECT_GT(c[1].bytes, 0);
  EXPECT_EQ(c[1].per_sample_bytes, 0);
  EXPECT_EQ(c[2].per_sample_bytes, c[2].bytes);
}

}  // namespace
}  // namespace hamgan
