// ADA's controller (gan/step/ada.h) on planted logits: p after each interval
// computed by hand from sign(r_t - target) * batch * interval / (kimg * 1000),
// clamping to [0, 1], the state round trip, and no host read inside an interval.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "core/errors.h"
#include "core/op_counter.h"
#include "gan/step/ada.h"

namespace hamgan {
namespace {

// 64 real logits of which `positive` are > 0, `zero` are 0 and the rest < 0.
torch::Tensor logits(int64_t positive, int64_t zero) {
  return torch::cat({torch::full({positive}, 2.5), torch::zeros({zero}), torch::full({64 - positive - zero}, -0.5)});
}

// One interval of the default 4 D updates of 64 images with the same logits; returns p.
double interval(AdaController& ada, const torch::Tensor& real) {
  for (int i = 0; i < 4; ++i) {
    ada.observe(real);
    EXPECT_EQ(ada.end_update(64), i == 3);
  }
  return ada.p();
}

TEST(Ada, DefaultsAreStyleGan2AdaOnes) {
  EXPECT_EQ(kAdaTarget, 0.6);
  EXPECT_EQ(kAdaInterval, 4);
  EXPECT_EQ(kAdaKimg, 500);
  EXPECT_EQ(AdaController().p(), 0);
  EXPECT_TRUE(std::isnan(AdaController().last_overfitting()));
}

TEST(Ada, FollowsTheFormulaOnPlantedLogits) {
  AdaController ada;  // target 0.6, interval 4, 500 kimg: one interval moves p by 64 * 4 / 500000 = 0.000512
  EXPECT_DOUBLE_EQ(interval(ada, logits(64, 0)), 0.000512);        // r = 1
  EXPECT_DOUBLE_EQ(ada.last_overfitting(), 1.0);
  EXPECT_DOUBLE_EQ(interval(ada, logits(52, 0)), 0.001024);        // r = (52 - 12) / 64 = 0.625
  EXPECT_DOUBLE_EQ(ada.last_overfitting(), 0.625);
  EXPECT_DOUBLE_EQ(interval(ada, logits(32, 32)), 0.000512);       // r = 32 / 64 = 0.5: zeros count, with sign 0
  EXPECT_DOUBLE_EQ(ada.last_overfitting(), 0.5);
  EXPECT_DOUBLE_EQ(interval(ada, logits(51, 0)), 0.0);             // r = (51 - 13) / 64 = 0.59375, just below
  EXPECT_DOUBLE_EQ(interval(ada, logits(0, 0)), 0.0);              // r = -1: clamped at 0
}

TEST(Ada, StandsStillAtTheTargetAndClampsAtOne) {
  AdaSettings s;
  s.target = 0.5;
  s.kimg = 0.1;  // one interval of 256 images moves p by 2.56
  AdaController ada(s);
  EXPECT_EQ(interval(ada, logits(48, 0)), 0.0);  // r = (48 - 16) / 64 = 0.5 = target: sign 0
  EXPECT_EQ(interval(ada, logits(60, 0)), 1.0);  // 0 + 2.56, clamped
  EXPECT_EQ(interval(ada, logits(10, 0)), 0.0);  // 1 - 2.56, clamped
}

TEST(Ada, MicroBatchesAndRanksAddUpBeforeTheRead) {
  AdaController ada;
  int reads = 0;
  const auto two_ranks = [&](torch::Tensor& sums) {
    ++reads;
    // 4 updates of two micro-batches of 32 logits, 40 more positive than negative each
    EXPECT_TRUE(torch::equal(sums, torch::tensor({160.0f, 256.0f})));
    sums.mul_(2);  // a second rank that saw the same
  };
  for (int i = 0; i < 4; ++i) {
    const torch::Tensor real = logits(52, 0);
    ada.observe(real.slice(0, 0, 32));
    ada.observe(real.slice(0, 32, 64));
    ada.end_update(128, two_ranks);  // the global batch of both ranks
  }
  EXPECT_EQ(reads, 1);
  EXPECT_DOUBLE_EQ(ada.last_overfitting(), 0.625);
  EXPECT_DOUBLE_EQ(ada.p(), 128 * 4 / 500000.0);
}

TEST(Ada, StateRoundTripsMidInterval) {
  AdaController a;
  interval(a, logits(64, 0));
  interval(a, logits(60, 0));
  a.observe(logits(40, 0));  // an interval half done: two updates of sums pending
  a.end_update(64);
  a.observe(logits(64, 0));
  a.end_update(64);
  AdaController b;
  b.load_state(a.state());
  EXPECT_EQ(b.p(), a.p());
  // The rest of the interval: r = ((40 - 24) + 64 + 32 + 32) / 256 = 0.5625 < 0.6, so p goes from 2 steps to 1.
  for (AdaController* ada : {&a, &b}) {
    ada->observe(logits(32, 32));
    EXPECT_FALSE(ada->end_update(64));
    ada->observe(logits(32, 32));
    EXPECT_TRUE(ada->end_update(64));
  }
  EXPECT_DOUBLE_EQ(a.last_overfitting(), 0.5625);
  EXPECT_DOUBLE_EQ(b.last_overfitting(), 0.5625);
  EXPECT_DOUBLE_EQ(b.p(), 0.000512);
  EXPECT_EQ(a.p(), b.p());
  AdaState bad = a.state();
  bad.p = 1.5;
  EXPECT_THROW(b.load_state(bad), CheckpointError);
}

TEST(Ada, BadSettingsNameTheKey) {
  AdaSettings s;
  s.interval = 0;
  EXPECT_THROW(AdaController{s}, ConfigError);
  s = {};
  s.kimg = 0;
  EXPECT_THROW(AdaController{s}, ConfigError);
  s = {};
  s.target = 1.5;
  try {
    AdaController ada(s);
    ADD_FAILURE() << "target 1.5 accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("ada_target: ", 0), 0u) << e.what();
  }
}

TEST(Ada, ObservingReadsNothingFromTheDevice) {
  AdaController ada;
  const torch::Tensor real = logits(40, 4);
  OpCounter counter(1);
  for (int i = 0; i < 3; ++i) {  // inside an interval
    ada.observe(real);
    ada.end_update(64);
  }
  counter.lap(0);
  EXPECT_GT(counter.total().kernels, 0);
  EXPECT_EQ(counter.total().syncs, 0);
}

}  // namespace
}  // namespace hamgan
