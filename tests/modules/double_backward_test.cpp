// Second backward passes (a gradient penalty's create_graph) through the library's custom autograd
// nodes: spectral norm's division W/d and the fused CPU NMF one-step node keep their first-order
// backward in a plain backward pass and switch to differentiable ATen ops when the backward builds a
// graph. Each is checked against autograd on the same function written in plain ATen ops, where the
// constants of the custom node (u, v; D, S and the ReLU mask) are constants too.
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/record_function.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <set>
#include <string>

#include "modules/ham_decomposition.h"
#include "modules/ham_nmf_autograd.h"
#include "modules/ham_nmf_cpu.h"
#include "modules/spectral_divide.h"
#include "modules/spectral_norm.h"
#include "tests/modules/module_test_util.h"

namespace hamgan {
namespace {

using test::seeded;

// The ATen ops `work` dispatches on this thread, its backward passes included.
std::set<std::string> ops_of(const std::function<void()>& work) {
  static thread_local std::set<std::string>* seen = nullptr;
  std::set<std::string> names;
  seen = &names;
  const auto handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback([](const at::RecordFunction& fn) -> std::unique_ptr<at::ObserverContext> {
        if (seen) seen->insert(fn.name());
        return nullptr;
      }).scopes({at::RecordScope::FUNCTION}));
  work();
  at::removeCallback(handle);
  seen = nullptr;
  return names;
}

double relative_error(const torch::Tensor& got, const torch::Tensor& want) {
  return ((got.to(torch::kDouble) - want.to(torch::kDouble)).abs().max() /
          want.to(torch::kDouble).abs().max().clamp_min(1e-30))
      .item<double>();
}

torch::Tensor grad_of(const torch::Tensor& y, const torch::Tensor& x, bool create_graph) {
  return torch::autograd::grad({y}, {x}, {}, /*retain_graph=*/true, create_graph)[0];
}

// ---------------------------------------------------------------- spectral norm

struct SnCase {
  std::string name;
  std::vector<int64_t> shape;
  SNMode mode;
  double scale;  // of the weights: σ below or above 1 for the clamp
  bool channels_last;
};

// A penalty on W's own gradient, so the division's backward is inside the first pass: with
// s = Σ R ⊙ tanh(W/d), P = ‖∂s/∂W‖², returns (∂s/∂W, ∂P/∂W).
std::pair<torch::Tensor, torch::Tensor> weight_penalty(const torch::Tensor& w, const torch::Tensor& normalized,
                                                       const torch::Tensor& r) {
  const auto g = grad_of((normalized.tanh() * r).sum(), w, /*create_graph=*/true);
  return {g, grad_of(g.square().sum(), w, /*create_graph=*/false)};
}

TEST(DoubleBackward, SpectralNormMatchesPlainAutograd) {
  const std::vector<SnCase> cases = {{"exact conv", {6, 4, 3, 3}, SNMode::kExact, 1.0, false},
                                     {"exact conv channels_last", {6, 4, 3, 3}, SNMode::kExact, 1.0, true},
                                     {"clamp linear, sigma > 1", {5, 7}, SNMode::kClamp, 3.0, false},
                                     {"clamp linear, sigma < 1", {5, 7}, SNMode::kClamp, 0.01, false}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    torch::manual_seed(11);
    auto w0 = torch::randn(c.shape, torch::kDouble) * c.scale;
    if (c.channels_last) w0 = w0.contiguous(torch::MemoryFormat::ChannelsLast);
    const auto u0 = torch::randn({c.shape[0]}, torch::kDouble);
    const auto r = torch::randn(c.shape, torch::kDouble);

    const auto w = w0.clone().requires_grad_(true);
    auto u = u0.clone();
    const auto normalized = spectral_normalize(w, u, c.mode, /*update=*/true);  // u becomes u'
    // The reference: the same iteration's u' and v as constants, d = u'ᵀWv (or max(1, ·)) in plain ops.
    const auto w_ref = w0.clone().requires_grad_(true);
    const auto v = torch::nn::functional::normalize(sn_matrix(w0).t().mv(u0),
                                                    torch::nn::functional::NormalizeFuncOptions().dim(0));
    const auto sigma = torch::dot(u, sn_matrix(w_ref).mv(v));
    const auto d = c.mode == SNMode::kExact ? sigma : torch::clamp_min(sigma, 1.0);
    const auto want = weight_penalty(w_ref, w_ref / d, r);

    std::pair<torch::Tensor, torch::Tensor> got;
    const auto second_pass = ops_of([&] { got = weight_penalty(w, normalized, r); });
    EXPECT_LT(relative_error(normalized, w_ref / d), 1e-12);
    EXPECT_LT(relative_error(got.first, want.first), 1e-10) << "first-order gradient";
    EXPECT_LT(relative_error(got.second, want.second), 1e-10) << "gradient of the penalty";
    // The closed form alone in a plain backward pass; σ = u'ᵀWv rebuilt from W only when it builds a graph.
    const auto again = spectral_normalize(w, u, c.mode, /*update=*/false);
    const auto first_pass = ops_of([&] { grad_of((again * r).sum(), w, /*create_graph=*/false); });
    EXPECT_EQ(first_pass.count("aten::dot"), 0u);
    EXPECT_EQ(second_pass.count("aten::dot"), 1u);
  }
}

// ---------------------------------------------------------------- NMF one-step nodes

struct NmfPenalty {
  torch::Tensor grad_x, of_x, of_r;  // ∂s/∂x, then ∂P/∂x and ∂P/∂R for P = ‖∂s/∂x‖²
};

// s = Σ R ⊙ tanh(codes(x)): R stands for the layers after the block, whose weights the penalty's
// gradient must reach through the node's backward.
NmfPenalty nmf_penalty(const torch::Tensor& x, const torch::Tensor& codes, const torch::Tensor& r) {
  NmfPenalty p;
  p.grad_x = grad_of((codes.tanh() * r).sum(), x, /*create_graph=*/true);
  const auto grads = torch::autograd::grad({p.grad_x.square().sum()}, {x, r});
  p.of_x = grads[0];
  p.of_r = grads[1];
  return p;
}

struct NmfInputs {
  torch::Tensor x0, bases, r;
  NmfOneStepCpu state;  // D and S of the one-step gradient, as the node under test computes them
};

NmfInputs nmf_inputs(int64_t rank) {
  auto gen = seeded(17);
  NmfInputs in;
  in.x0 = torch::randn({2, 16, 40}, gen);
  in.bases = torch::rand({2, 16, rank}, gen);
  in.r = torch::randn({2, 40, rank}, gen).requires_grad_(true);
  if (rank <= kFusedNmfMaxRank) {
    in.state = nmf_one_step_cpu(in.x0, in.bases, 6, 1.0, kHamEps, /*keep_for_backward=*/false);
    return in;
  }
  const HamFactors f = ham_local_steps(torch::relu(in.x0), in.bases, HamSolverOptions{});  // NMF, K = 6
  in.state.bases = f.bases;
  in.state.scale = nmf_one_step_scale(f);
  return in;
}

// The one-step codes (ReLU(x)ᵀ D) ⊙ S in plain ops, D and S constants.
NmfPenalty plain_nmf_penalty(const NmfInputs& in) {
  const auto x = in.x0.clone().requires_grad_(true);
  const auto r = in.r.detach().clone().requires_grad_(true);
  const auto codes = torch::bmm(torch::relu(x).transpose(1, 2), in.state.bases) * in.state.scale;
  return nmf_penalty(x, codes, r);
}

void expect_same_penalty(const NmfPenalty& got, const NmfPenalty& want) {
  EXPECT_LT(relative_error(got.grad_x, want.grad_x), 1e-5) << "first-order gradient";
  EXPECT_LT(relative_error(got.of_x, want.of_x), 1e-5) << "penalty gradient at x";
  EXPECT_LT(relative_error(got.of_r, want.of_r), 1e-5) << "penalty gradient at the later layer";
  EXPECT_GT(want.of_r.abs().max().item<double>(), 1e-3) << "the later layer matters to the penalty";
}

TEST(DoubleBackward, FusedNmfNodeMatchesPlainAutograd) {
  const NmfInputs in = nmf_inputs(4);
  const auto want = plain_nmf_penalty(in);
  const auto x = in.x0.clone().requires_grad_(true);
  const auto codes = fused_nmf_one_step(x, in.bases, 6, 1.0)[0];
  // A plain backward pass takes the fused kernel (no ATen product); one that builds a graph, bmm.
  const auto plain_ops = ops_of([&] { grad_of((codes.tanh() * in.r).sum(), x, /*create_graph=*/false); });
  NmfPenalty got;
  const auto penalty_ops = ops_of([&] { got = nmf_penalty(x, codes, in.r); });
  expect_same_penalty(got, want);
  EXPECT_EQ(plain_ops.count("aten::bmm"), 0u);
  EXPECT_EQ(penalty_ops.count("aten::bmm"), 1u);
}

TEST(DoubleBackward, ReluNmfNodeMatchesPlainAutograd) {
  // The node the Hamburger takes where the fused kernel does not (CUDA, ranks above 8).
  const NmfInputs in = nmf_inputs(kFusedNmfMaxRank + 1);
  const auto want = plain_nmf_penalty(in);
  const auto x = in.x0.clone().requires_grad_(true);
  auto z = x * 1.0;  // the bread's output, rectified in place as the block does
  {
    torch::NoGradGuard no_grad;
    z.relu_();
  }
  expect_same_penalty(nmf_penalty(x, relu_nmf_codes(z, in.state.bases, in.state.scale), in.r), want);
}

}  // namespace
}  // namespace hamgan
