// Each step updates its own network only (docs/training.md "Training loop"): d_step
// leaves G's weights, gradients and Adam state as they were, g_step leaves D's.
// Each still runs the other network's forward pass in training mode, as the loop
// does, and that forward writes the other network's buffers: every spectral-norm u
// moves by exactly one power iteration, and in d_step G's batch-norm moving
// statistics follow the generated batch (BigGAN-PyTorch keeps G in training mode
// while D trains). Nothing else of the other network changes.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/text.h"
#include "gan/step/grad_sync.h"
#include "gan/step/steps.h"
#include "gan/train/train_state.h"
#include "modules/spectral_norm.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

using Tensors = std::map<std::string, torch::Tensor>;

// Adam's moments and step count per parameter that has state, keyed "<index>.<field>".
Tensors adam_state(torch::optim::Adam& opt) {
  Tensors out;
  int64_t index = 0;
  for (auto& group : opt.param_groups())
    for (auto& p : group.params()) {
      const std::string key = std::to_string(index++);
      auto it = opt.state().find(p.unsafeGetTensorImpl());
      if (it == opt.state().end()) continue;
      auto& st = static_cast<torch::optim::AdamParamState&>(*it->second);
      out[key + ".exp_avg"] = st.exp_avg().clone();
      out[key + ".exp_avg_sq"] = st.exp_avg_sq().clone();
      out[key + ".step"] = torch::tensor(static_cast<int64_t>(st.step()));
    }
  return out;
}

struct NetSnapshot {
  Tensors weights, grads, buffers, adam;
};

NetSnapshot snapshot(torch::nn::Module& net, torch::optim::Adam& opt) {
  NetSnapshot s;
  for (const auto& p : net.named_parameters()) {
    s.weights[p.key()] = p.value().detach().clone();
    if (p.value().grad().defined()) s.grads[p.key()] = p.value().grad().clone();
  }
  for (const auto& b : net.named_buffers()) s.buffers[b.key()] = b.value().clone();
  s.adam = adam_state(opt);
  return s;
}

// The keys whose tensors differ, or that only one side has.
std::set<std::string> changed(const Tensors& a, const Tensors& b) {
  std::set<std::string> out;
  for (const auto& [key, t] : a)
    if (!b.count(key) || !torch::equal(t, b.at(key))) out.insert(key);
  for (const auto& kv : b)
    if (!a.count(kv.first)) out.insert(kv.first);
  return out;
}

std::string joined(const std::set<std::string>& keys) {
  std::string s;
  for (const auto& k : keys) s += k + " ";
  return s;
}

// Every spectral-norm layer of `net`: its u buffer's name and its weight.
std::vector<std::pair<std::string, torch::Tensor>> spectral_norm_layers(torch::nn::Module& net) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& m : net.named_modules()) {
    const std::string u = m.key().empty() ? "u" : m.key() + ".u";
    if (auto* conv = dynamic_cast<SNConv2dImpl*>(m.value().get())) out.emplace_back(u, conv->weight);
    if (auto* linear = dynamic_cast<SNLinearImpl*>(m.value().get())) out.emplace_back(u, linear->weight);
    if (auto* embedding = dynamic_cast<SNEmbeddingImpl*>(m.value().get())) out.emplace_back(u, embedding->weight);
  }
  return out;
}

// Every u of `net` is one power iteration of its (current) weight from its value in `before`,
// and at least one moved.
void expect_one_power_iteration(torch::nn::Module& net, const Tensors& before) {
  torch::NoGradGuard no_grad;
  const auto buffers = net.named_buffers();
  const auto layers = spectral_norm_layers(net);
  ASSERT_FALSE(layers.empty());
  int64_t moved = 0;
  for (const auto& [key, weight] : layers) {
    torch::Tensor want = before.at(key).clone();
    spectral_normalize(weight.detach(), want, SNMode::kClamp, /*update=*/true);
    // The network's forward runs all its layers' iterations at once (modules/spectral_norm_group.h):
    // the same arithmetic, summed in another order, so equal to rounding; a second or a missing
    // iteration would differ by far more.
    EXPECT_TRUE(torch::allclose(buffers[key], want, 1e-5, 1e-7)) << key;
    moved += !torch::equal(before.at(key), want);
  }
  EXPECT_GT(moved, 0);
}

// Weights, gradients and Adam state of the network a step must not update are
// bit-identical, and were not empty (so there was something to disturb).
void expect_not_updated(const NetSnapshot& before, const NetSnapshot& after) {
  ASSERT_FALSE(before.grads.empty());
  ASSERT_FALSE(before.adam.empty());
  EXPECT_EQ(joined(changed(before.weights, after.weights)), "");
  EXPECT_EQ(joined(changed(before.grads, after.grads)), "");
  EXPECT_EQ(joined(changed(before.adam, after.adam)), "");
}

// The network a step updates: its weights moved and Adam counted one more step for every parameter.
void expect_updated(const NetSnapshot& before, const NetSnapshot& after) {
  EXPECT_FALSE(changed(before.weights, after.weights).empty());
  ASSERT_FALSE(after.adam.empty());
  for (const auto& [key, step] : after.adam)
    if (ends_with(key, ".step")) {
      ASSERT_TRUE(before.adam.count(key)) << key;
      EXPECT_EQ(step.item<int64_t>(), before.adam.at(key).item<int64_t>() + 1) << key;
    }
}

// The two step calls, in one place.
void run_d_step(TrainState& state, const TrainConfig& c) {
  const Batch batch{(torch::arange(c.batch_size * 32 * 32) % 256).to(torch::kUInt8).reshape({c.batch_size, 1, 32, 32}),
                    torch::arange(c.batch_size, torch::kLong) % c.model.num_classes,
                    torch::arange(c.batch_size) % 2 == 0};
  NoSync sync;
  StepStats stats;
  d_step(state, [&] { return batch; }, StepConfig{c.d_steps, c.batch_size, Precision{}}, sync, stats);
}

void run_g_step(TrainState& state, const TrainConfig& c) {
  NoSync sync;
  StepStats stats;
  g_step(state, StepConfig{c.d_steps, c.batch_size, Precision{}}, sync, stats);
}

// A tiny state (Hamburger in both networks) in training mode after one whole step, so
// both networks hold gradients and both optimisers hold moments, as in the loop.
void take_first_step(TrainState& state, const TrainConfig& c) {
  state.g->train();
  state.d->train();
  run_d_step(state, c);
  run_g_step(state, c);
}

TEST(StepIsolation, DStepUpdatesDAndLeavesGsWeightsGradientsAndAdamState) {
  const TrainConfig c = test::tiny_config(test::temp_dir("isolation_d"));
  TrainState state(c, torch::kCPU);
  take_first_step(state, c);
  const NetSnapshot g0 = snapshot(*state.g, *state.g_opt), d0 = snapshot(*state.d, *state.d_opt);
  run_d_step(state, c);
  const NetSnapshot g1 = snapshot(*state.g, *state.g_opt), d1 = snapshot(*state.d, *state.d_opt);
  expect_not_updated(g0, g1);
  expect_updated(d0, d1);
  // G's forward (training mode, no gradient) wrote its buffers: one power iteration per u,
  // and the moving statistics of its batch norms; no other buffer.
  expect_one_power_iteration(*state.g, g0.buffers);
  int64_t moving_statistics = 0;
  for (const auto& key : changed(g0.buffers, g1.buffers)) {
    const bool statistic = ends_with(key, ".running_mean") || ends_with(key, ".running_var");
    EXPECT_TRUE(statistic || ends_with(key, ".u")) << key;
    moving_statistics += statistic;
  }
  EXPECT_GT(moving_statistics, 0);
}

TEST(StepIsolation, GStepUpdatesGAndLeavesDsWeightsGradientsAndAdamState) {
  const TrainConfig c = test::tiny_config(test::temp_dir("isolation_g"));
  TrainState state(c, torch::kCPU);
  take_first_step(state, c);
  run_d_step(state, c);  // the loop's order: D's gradients are those of the D update just made
  const NetSnapshot g0 = snapshot(*state.g, *state.g_opt), d0 = snapshot(*state.d, *state.d_opt);
  run_g_step(state, c);
  const NetSnapshot g1 = snapshot(*state.g, *state.g_opt), d1 = snapshot(*state.d, *state.d_opt);
  expect_not_updated(d0, d1);
  expect_updated(g0, g1);
  // D's forward (training mode) ran its power iterations: every u moved by exactly one,
  // and D has no other buffer that changed.
  expect_one_power_iteration(*state.d, d0.buffers);
  for (const auto& key : changed(d0.buffers, d1.buffers)) EXPECT_TRUE(ends_with(key, ".u")) << key;
}

}  // namespace
}  // namespace hamgan
