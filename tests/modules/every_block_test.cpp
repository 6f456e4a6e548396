// One table-driven test over every registered context block: a block that gets
// registered is tested without editing this file.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sstream>

#include "modules/context_block.h"
#include "modules/ham_block.h"
#include "tests/common/cuda_test_util.h"

using namespace hamgan;

namespace {

using Param = std::tuple<std::string, torch::ScalarType>;

struct Case {
  int64_t batch, channels, height, width, num_classes;
};
const Case kCases[] = {{2, 64, 8, 8, 0}, {2, 64, 32, 32, 10}, {3, 128, 4, 6, 0}};

class EveryBlock : public ::testing::TestWithParam<Param> {
 protected:
  ContextBlock build(const Case& c) {
    ContextOptions o;
    o.name = std::get<0>(GetParam());
    o.num_classes = c.num_classes;
    auto b = make_context_block(o, c.channels);
    b->to(std::get<1>(GetParam()));
    return b;
  }
  torch::Tensor input(const Case& c) {
    return torch::randn({c.batch, c.channels, c.height, c.width}, torch::TensorOptions(std::get<1>(GetParam())));
  }
  static torch::Tensor labels(const Case& c) { return torch::arange(c.batch, torch::kLong) % std::max<int64_t>(c.num_classes, 1); }
  static void set_scalars(const ContextBlock& b, double value) {
    torch::NoGradGuard ng;
    for (auto& p : b->parameters())
      if (p.dim() == 0) p.fill_(value);  // σ-style residual gains
  }
};

bool all_finite(const torch::Tensor& t) { return torch::isfinite(t).all().item<bool>(); }

// Fixes the block's random draws for its next forward: the Hamburger's bases come from a CPU
// generator seeded with `seed` and then move to the block's device, so CPU and CUDA see the
// same bases.
void pin_random_draws(const ContextBlock& b, uint64_t seed) {
  if (auto* ham = dynamic_cast<HamBlockImpl*>(b.get())) ham->set_generator(at::make_generator<at::CPUGeneratorImpl>(seed));
}

// TF32 would round float32 conv/matmul inputs to 10 mantissa bits on CUDA; compare true float32.
class NoTf32 {
 public:
  NoTf32() : cudnn_(at::globalContext().allowTF32CuDNN()), cublas_(at::globalContext().allowTF32CuBLAS()) {
    at::globalContext().setAllowTF32CuDNN(false);
    at::globalContext().setAllowTF32CuBLAS(false);
  }
  ~NoTf32() {
    at::globalContext().setAllowTF32CuDNN(cudnn_);
    at::globalContext().setAllowTF32CuBLAS(cublas_);
  }

 private:
  bool cudnn_, cublas_;
};

TEST_P(EveryBlock, ShapeIdentityAtInitAndFiniteGradients) {
  torch::manual_seed(0);
  for (const auto& c : kCases) {
    auto block = build(c);
    EXPECT_FALSE(block->describe().empty());
    auto x = input(c);
    auto y = block->forward(x, labels(c));
    ASSERT_EQ(y.sizes(), x.sizes());
    ASSERT_EQ(y.scalar_type(), x.scalar_type());
    // Residual gain σ starts at 0 (docs/modules.md, "Context blocks"): every block is the identity at init.
    EXPECT_TRUE(torch::equal(y, x)) << block->describe();

    set_scalars(block, 0.5);
    auto xg = x.clone().requires_grad_(true);
    auto out = block->forward(xg, labels(c));
    ASSERT_TRUE(all_finite(out));
    auto r = torch::randn_like(out);
    (out * r).sum().backward();
    ASSERT_TRUE(xg.grad().defined());
    EXPECT_TRUE(all_finite(xg.grad())) << block->describe();
    for (const auto& p : block->named_parameters())
      if (p.value().grad().defined()) {
        EXPECT_TRUE(all_finite(p.value().grad())) << p.key();
      }
  }
}

TEST_P(EveryBlock, SeededForwardIsReproducibleAndSurvivesSaveLoad) {
  for (const auto& c : kCases) {
    torch::manual_seed(1);
    auto a = build(c);
    set_scalars(a, 0.7);
    a->eval();
    auto x = input(c);
    torch::manual_seed(5);
    auto y1 = a->forward(x, labels(c));
    torch::manual_seed(5);
    auto y2 = a->forward(x, labels(c));
    EXPECT_TRUE(torch::equal(y1, y2)) << a->describe();

    std::stringstream ss;
    {
      torch::serialize::OutputArchive ar;
      a->save(ar);
      ar.save_to(ss);
    }
    torch::manual_seed(2);
    auto b = build(c);
    torch::serialize::InputArchive in;
    in.load_from(ss);
    b->load(in);
    b->eval();
    torch::manual_seed(5);
    EXPECT_TRUE(torch::equal(b->forward(x, labels(c)), y1)) << a->describe();
  }
}

// Its registry row counts its MACs (hamgan bench modules): a block with no count prints "?".
TEST_P(EveryBlock, RegistersItsMacCount) {
  for (const auto& c : kCases) {
    ContextOptions o;
    o.name = std::get<0>(GetParam());
    o.num_classes = c.num_classes;
    EXPECT_GE(module_macs(o, {c.batch, c.channels, c.height, c.width}), 0) << o.name;
  }
}

TEST_P(EveryBlock, CudaMatchesCpu) {
  REQUIRE_CUDA_OR_SKIP();
  const NoTf32 no_tf32;
  // rtol = atol per dtype. In float32 the Hamburger's K multiplicative NMF steps about double
  // the output's sensitivity to input rounding (≈2e-6 vs 1e-6 for the attention blocks after
  // a one-ulp input change, on CPU), hence its wider bound; in float64 all stay near 1e-15.
  const bool f64 = std::get<1>(GetParam()) == torch::kDouble;
  const double tol = f64 ? 1e-9 : (std::get<0>(GetParam()) == "ham" ? 1e-3 : 2e-4);
  for (const auto& c : kCases) {
    torch::manual_seed(3);
    auto block = build(c);
    set_scalars(block, 0.7);
    block->eval();
    auto x = input(c);
    auto l = labels(c);
    pin_random_draws(block, 11);
    auto cpu = block->forward(x, l);
    pin_random_draws(block, 11);
    torch::manual_seed(12);
    // With its draws pinned a block is a function of its input, so the numbers are comparable.
    ASSERT_TRUE(torch::equal(block->forward(x, l), cpu)) << block->describe() << ": pin its random draws above";
    block->to(torch::kCUDA);
    auto xg = x.to(torch::kCUDA).requires_grad_(true);
    pin_random_draws(block, 11);
    auto gpu = block->forward(xg, l.to(torch::kCUDA));
    ASSERT_EQ(gpu.sizes(), x.sizes());
    EXPECT_TRUE(all_finite(gpu));
    EXPECT_TRUE(torch::allclose(gpu.detach().cpu(), cpu, tol, tol))
        << block->describe() << " max diff " << (gpu.detach().cpu() - cpu).abs().max().item<double>();
    gpu.sum().backward();
    EXPECT_TRUE(all_finite(xg.grad()));
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryBlock,
                         ::testing::Combine(::testing::ValuesIn(context_block_names()),
                                            ::testing::Values(torch::kFloat, torch::kDouble)),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::get<0>(info.param) +
                                  (std::get<1>(info.param) == torch::kFloat ? "_float32" : "_float64");
                         });

}  // namespace
