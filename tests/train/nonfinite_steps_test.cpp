// Non-finite steps under bf16 (docs/training.md "Precision"): skipped up to the
// max_nonfinite_steps budget, then the run stops at its last good checkpoint.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/train/trainer.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

// Makes D's first spectral-norm vector NaN after step `at` and puts it back after the
// next step: that one step's losses and gradients are non-finite, nothing persists.
std::unique_ptr<TrainHook> one_nonfinite_step_after(std::vector<int64_t> at, std::vector<int64_t>& seen) {
  auto saved = std::make_shared<torch::Tensor>();
  return make_callback_hook([at, saved, &seen](TrainState& s, RunContext&) {
    torch::NoGradGuard no_grad;
    torch::Tensor u;
    for (const auto& b : s.d->named_buffers())
      if (b.key().size() >= 2 && b.key().substr(b.key().size() - 2) == ".u") {
        u = b.value();
        break;
      }
    ASSERT_TRUE(u.defined());
    if (saved->defined()) {
      u.copy_(*saved);
      *saved = torch::Tensor();
    }
    if (std::find(at.begin(), at.end(), s.step) != at.end()) {
      seen.push_back(s.step);
      *saved = u.clone();
      u.fill_(NAN);
    }
  });
}

TEST(Precision, NonFiniteStepsWithinTheBudgetAreSkipped) {
  const std::string dir = test::temp_dir("nonfinite_skipped");
  TrainConfig c = test::tiny_config(dir);
  c.precision = PrecisionChoice::kBf16;
  c.steps = 6;
  c.max_nonfinite_steps = 1;
  std::vector<int64_t> poisoned;
  std::vector<torch::Tensor> g_after;  // G's first weight after steps 3 and 4
  TrainHooks hooks;
  hooks.push_back(one_nonfinite_step_after({3}, poisoned));
  hooks.push_back(make_callback_hook([&](TrainState& s, RunContext&) {
    if (s.step == 3 || s.step == 4) g_after.push_back(s.g->parameters().front().detach().clone());
  }));
  const TrainResult r = train(c, std::move(hooks));
  EXPECT_EQ(r.step, 6);
  EXPECT_EQ(r.nonfinite_steps, 1);
  EXPECT_EQ(poisoned, std::vector<int64_t>{3});
  // Step 4's updates were not applied: G is exactly as after step 3.
  ASSERT_EQ(g_after.size(), 2u);
  EXPECT_TRUE(torch::equal(g_after[0], g_after[1]));
  EXPECT_EQ(latest_checkpoint(dir + "/checkpoints"), dir + "/checkpoints/step_0000006.pt");
}

TEST(Precision, MoreNonFiniteStepsThanTheBudgetStopTheRun) {
  const std::string dir = test::temp_dir("nonfinite_stops");
  TrainConfig c = test::tiny_config(dir);
  c.precision = PrecisionChoice::kBf16;
  c.steps = 8;
  c.max_nonfinite_steps = 1;
  std::vector<int64_t> poisoned;
  TrainHooks hooks;
  hooks.push_back(one_nonfinite_step_after({3, 5}, poisoned));
  const std::string good = dir + "/checkpoints/step_0000004.pt";
  try {
    train(c, std::move(hooks));
    FAIL() << "a second non-finite step must stop a run allowing one";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("training diverged at step 6"), std::string::npos) << msg;
    EXPECT_NE(msg.find("max_nonfinite_steps = 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find(good), std::string::npos) << msg;
  }
  EXPECT_EQ(latest_checkpoint(dir + "/checkpoints"), good);
}

}  // namespace
}  // namespace hamgan
