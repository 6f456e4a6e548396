// The training loop: bit-exact resume, pruning, hooks that leave the training
// stream alone, evaluation during training, d_steps, divergence and stop signals.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/report/run_log.h"
#include "gan/train/trainer.h"
#include "tests/common/classifier_test_util.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

// Every parameter and buffer of the networks in two checkpoints, compared bit for bit.
void expect_same_networks(const std::string& a, const std::string& b, const ModelConfig& mc) {
  for (const char* which : {"G", "D", "G_ema"}) {
    std::shared_ptr<torch::nn::Module> ma, mb;
    CheckpointRefs ra, rb;
    if (std::string(which) == "D") {
      Discriminator da(mc), db(mc);
      ra.d = da, rb.d = db, ma = da.ptr(), mb = db.ptr();
    } else {
      Generator ga(mc), gb(mc);
      (std::string(which) == "G" ? ra.g : ra.g_ema) = ga;
      (std::string(which) == "G" ? rb.g : rb.g_ema) = gb;
      ma = ga.ptr(), mb = gb.ptr();
    }
    load_checkpoint(a, ra, false);
    load_checkpoint(b, rb, false);
    auto pa = ma->named_parameters(), pb = mb->named_parameters();
    for (const auto& item : pa) EXPECT_TRUE(torch::equal(item.value(), pb[item.key()])) << which << "." << item.key();
    auto ba = ma->named_buffers(), bb = mb->named_buffers();
    for (const auto& item : ba) EXPECT_TRUE(torch::equal(item.value(), bb[item.key()])) << which << "." << item.key();
  }
}

void expect_same_losses(const std::string& run_a, const std::string& run_b, size_t steps) {
  const auto la = read_metrics(run_a + "/metrics.jsonl"), lb = read_metrics(run_b + "/metrics.jsonl");
  std::vector<std::map<std::string, double>> ta, tb;  // training rows only (evaluation rows have no d_loss)
  for (const auto& r : la) if (r.count("d_loss")) ta.push_back(r);
  for (const auto& r : lb) if (r.count("d_loss")) tb.push_back(r);
  ASSERT_EQ(ta.size(), steps);
  ASSERT_EQ(tb.size(), steps);
  for (size_t i = 0; i < steps; ++i) {
    EXPECT_EQ(ta[i].at("d_loss"), tb[i].at("d_loss")) << "step " << i + 1;
    EXPECT_EQ(ta[i].at("g_loss"), tb[i].at("g_loss")) << "step " << i + 1;
  }
}

TEST(Trainer, ResumeIsBitExactOnCpu) {
  const std::string straight = test::temp_dir("straight"), split = test::temp_dir("split");
  TrainConfig a = test::tiny_config(straight);
  a.steps = 4;
  const TrainResult ra = train(a);
  EXPECT_EQ(ra.step, 4);
  TrainConfig b = test::tiny_config(split);
  b.steps = 2;
  train(b);
  b.steps = 4;
  b.resume = ResumeMode::kYes;
  const TrainResult rb = train(b);
  EXPECT_EQ(rb.step, 4);
  expect_same_networks(ra.checkpoint, rb.checkpoint, a.model);
  expect_same_losses(straight, split, 4);
  EXPECT_EQ(test::file_contents(straight + "/samples/step_0000004.png"), test::file_contents(split + "/samples/step_0000004.png"));
  EXPECT_EQ(latest_checkpoint(split + "/checkpoints"), split + "/checkpoints/step_0000004.pt");
  // Without --resume an existing run is refused instead of overwritten.
  b.resume = ResumeMode::kNo;
  EXPECT_THROW(train(b), ConfigError);
}

TEST(Trainer, KeepsOnlyTheNewestCheckpointsAndNeverOtherFiles) {
  const std::string dir = test::temp_dir("prune");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 5;
  c.checkpoint_every = 1;
  c.keep_checkpoints = 2;
  fs::create_directories(dir + "/checkpoints");
  std::ofstream(dir + "/checkpoints/best.pt") << "kept";
  train(c);
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir + "/checkpoints")) names.insert(e.path().filename().string());
  const std::set<std::string> want = {"best.pt", "latest", "step_0000004.pt", "step_0000004.pt.done",
                                      "step_0000005.pt", "step_0000005.pt.done"};
  EXPECT_EQ(names, want);
}

TEST(Trainer, GridsAndEvaluationEveryStepLeaveTrainingBitIdentical) {
  const std::string busy = test::temp_dir("busy"), quiet = test::temp_dir("quiet");
  TrainConfig a = test::tiny_config(busy);
  a.steps = 3;
  a.sample_every = 1;
  a.eval_every = 1;
  a.eval_n = 20;
  a.classifier = test::tiny_classifier(busy);
  const TrainResult ra = train(a);
  TrainConfig b = test::tiny_config(quiet);
  b.steps = 3;
  b.sample_every = 0;  // a grid at the end only
  b.checkpoint_every = 0;
  const TrainResult rb = train(b);
  expect_same_networks(ra.checkpoint, rb.checkpoint, a.model);
  expect_same_losses(busy, quiet, 3);
  // Evaluation ran at every step and its rows reached the log.
  int64_t eval_rows = 0;
  for (const auto& r : read_metrics(busy + "/metrics.jsonl"))
    if (r.count("class_consistency") && r.count("fid_classifier")) ++eval_rows;
  EXPECT_EQ(eval_rows, 3);
  for (int64_t s = 1; s <= 3; ++s) EXPECT_TRUE(fs::exists(busy + "/samples/step_000000" + std::to_string(s) + ".png"));
  EXPECT_FALSE(fs::exists(quiet + "/samples/step_0000001.png"));
}

TEST(Trainer, TwoDiscriminatorStepsPerGeneratorStep) {
  const std::string dir = test::temp_dir("d_steps");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 3;
  c.d_steps = 2;
  const TrainResult r = train(c);
  TrainState state(c, torch::kCPU);
  state.load(r.checkpoint);
  // Each step reads d_steps fresh real batches; D's Adam stepped twice per G step.
  EXPECT_EQ(state.data_position.epoch * 60000 + state.data_position.index, 3 * 2 * c.batch_size);
  auto adam_steps = [](torch::optim::Adam& opt) {
    int64_t n = -1;
    for (const auto& kv : opt.state()) n = static_cast<torch::optim::AdamParamState&>(*kv.second).step();
    return n;
  };
  EXPECT_EQ(adam_steps(*state.d_opt), 6);
  EXPECT_EQ(adam_steps(*state.g_opt), 3);
}

void poison(torch::nn::Module& m) {
  torch::NoGradGuard no_grad;
  m.parameters().front().fill_(NAN);
}

TrainHooks one_hook(std::function<void(TrainState&)> fn) {
  TrainHooks hooks;
  hooks.push_back(make_callback_hook([fn](TrainState& s, RunContext&) { fn(s); }));
  return hooks;
}

TEST(Trainer, NonFiniteLossStopsAndKeepsTheLastGoodCheckpoint) {
  const std::string dir = test::temp_dir("nan_loss");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 8;
  const std::string good = dir + "/checkpoints/step_0000002.pt";
  std::string before;
  auto hooks = one_hook([&](TrainState& s) {
    if (s.step != 3) return;
    before = test::file_contents(good);
    poison(*s.g);  // step 4's losses become NaN
  });
  try {
    train(c, std::move(hooks));
    FAIL() << "a NaN loss must stop training";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("step 4"), std::string::npos) << msg;
    EXPECT_NE(msg.find(good), std::string::npos) << msg;
  }
  EXPECT_EQ(latest_checkpoint(dir + "/checkpoints"), good);
  EXPECT_FALSE(before.empty());
  EXPECT_TRUE(test::file_contents(good) == before);
  EXPECT_FALSE(fs::exists(dir + "/checkpoints/step_0000004.pt"));
}

// Losses are summed on the device and read at log rows; with rows far apart the
// checkpoint's own read still catches a non-finite loss before anything is written.
TEST(Trainer, NonFiniteLossBetweenLogRowsIsCaughtBeforeTheCheckpoint) {
  const std::string dir = test::temp_dir("nan_loss_unlogged");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 8;
  c.log_every = 100;
  const std::string good = dir + "/checkpoints/step_0000002.pt";
  auto hooks = one_hook([&](TrainState& s) {
    if (s.step == 3) poison(*s.g);  // step 4's losses become NaN
  });
  try {
    train(c, std::move(hooks));
    FAIL() << "a NaN loss must stop training";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("training diverged at step 4 (d_loss NaN"), std::string::npos) << msg;
    EXPECT_NE(msg.find("mean of the last 4 steps"), std::string::npos) << msg;
    EXPECT_NE(msg.find(good), std::string::npos) << msg;
  }
  EXPECT_EQ(latest_checkpoint(dir + "/checkpoints"), good);
  EXPECT_FALSE(fs::exists(dir + "/checkpoints/step_0000004.pt"));
  // No log row was due: metrics.jsonl holds none of the poisoned steps.
  const std::string log = dir + "/metrics.jsonl";
  EXPECT_EQ((fs::exists(log) ? test::file_contents(log) : "").find("NaN"), std::string::npos);
}

TEST(Trainer, NonFiniteWeightsAreNeverCheckpointed) {
  const std::string dir = test::temp_dir("nan_weights");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 8;
  // Step 4's losses are still finite, but the weights to be checkpointed at step 4 are not.
  EXPECT_THROW(train(c, one_hook([](TrainState& s) {
                 if (s.step == 4) poison(*s.d);
               })),
               Error);
  EXPECT_EQ(latest_checkpoint(dir + "/checkpoints"), dir + "/checkpoints/step_0000002.pt");
  EXPECT_FALSE(fs::exists(dir + "/checkpoints/step_0000004.pt"));
  // The run continues from the good checkpoint.
  c.resume = ResumeMode::kYes;
  c.steps = 3;
  EXPECT_EQ(train(c).step, 3);
}

TEST(Trainer, SigintWritesACheckpointAndStopsCleanly) {
  const std::string dir = test::temp_dir("sigint");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 50;
  const TrainResult r = train(c, one_hook([](TrainState& s) {
                                if (s.step == 3) std::raise(SIGINT);  // the trainer's handler only sets a flag
                              }));
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.step, 3);
  EXPECT_EQ(r.checkpoint, dir + "/checkpoints/step_0000003.pt");
  EXPECT_EQ(latest_checkpoint(dir + "/checkpoints"), r.checkpoint);
  TrainState s(c, torch::kCPU);
  s.load(r.checkpoint);
  EXPECT_EQ(s.step, 3);
  EXPECT_EQ(s.data_position.epoch * 60000 + s.data_position.index, 12);  // three full batches of 4 consumed
}

}  // namespace
}  // namespace hamgan
