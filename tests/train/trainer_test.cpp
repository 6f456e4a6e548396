// The training loop: bit-exact resume, divergence handling, stop signals, atomic checkpoints.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "gan/checkpoint.h"
#include "gan/run_log.h"
#include "gan/trainer.h"
#include "train_test_util.h"

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
  b.resume = true;
  const TrainResult rb = train(b);
  EXPECT_EQ(rb.step, 4);
  expect_same_networks(ra.checkpoint, rb.checkpoint, a.model);
  // Same losses logged at every step and the same final sample grid.
  const auto la = read_metrics(straight + "/metrics.jsonl"), lb = read_metrics(split + "/metrics.jsonl");
  ASSERT_EQ(la.size(), 4u);
  ASSERT_EQ(lb.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(la[i].at("d_loss"), lb[i].at("d_loss")) << "step " << i + 1;
    EXPECT_EQ(la[i].at("g_loss"), lb[i].at("g_loss")) << "step " << i + 1;
  }
  EXPECT_EQ(test::file_contents(straight + "/samples/step_0000004.png"), test::file_contents(split + "/samples/step_0000004.png"));
  // Only the newest keep_checkpoints (2) files stay, and `latest` names the newest.
  EXPECT_TRUE(fs::exists(split + "/checkpoints/step_0000002.pt"));
  EXPECT_TRUE(fs::exists(split + "/checkpoints/step_0000004.pt"));
  EXPECT_FALSE(fs::exists(straight + "/checkpoints/step_0000002.pt") && fs::exists(straight + "/checkpoints/step_0000004.pt") &&
               std::distance(fs::directory_iterator(straight + "/checkpoints"), fs::directory_iterator{}) > 3);
  EXPECT_EQ(latest_checkpoint(split + "/checkpoints"), split + "/checkpoints/step_0000004.pt");
  // Without --resume an existing run is refused instead of overwritten.
  b.resume = false;
  EXPECT_THROW(train(b), ConfigError);
}

void poison(torch::nn::Module& m) {
  torch::NoGradGuard no_grad;
  m.parameters().front().fill_(NAN);
}

TEST(Trainer, NonFiniteLossStopsAndKeepsTheLastGoodCheckpoint) {
  const std::string dir = test::temp_dir("nan_loss");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 8;
  const std::string good = dir + "/checkpoints/step_0000002.pt";
  std::string before;
  c.after_step = [&](int64_t step, torch::nn::Module& g, torch::nn::Module&) {
    if (step != 3) return;
    before = test::file_contents(good);
    poison(g);  // step 4's losses become NaN
  };
  try {
    train(c);
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

TEST(Trainer, NonFiniteWeightsAreNeverCheckpointed) {
  const std::string dir = test::temp_dir("nan_weights");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 8;
  // Step 4's losses are still finite, but the weights to be checkpointed at step 4 are not.
  c.after_step = [](int64_t step, torch::nn::Module&, torch::nn::Module& d) {
    if (step == 4) poison(d);
  };
  EXPECT_THROW(train(c), Error);
  EXPECT_EQ(latest_checkpoint(dir + "/checkpoints"), dir + "/checkpoints/step_0000002.pt");
  EXPECT_FALSE(fs::exists(dir + "/checkpoints/step_0000004.pt"));
  // The run continues from the good checkpoint.
  c.after_step = nullptr;
  c.resume = true;
  c.steps = 3;
  EXPECT_EQ(train(c).step, 3);
}

TEST(Trainer, SigintWritesACheckpointAndStopsCleanly) {
  const std::string dir = test::temp_dir("sigint");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 50;
  c.after_step = [](int64_t step, torch::nn::Module&, torch::nn::Module&) {
    if (step == 3) std::raise(SIGINT);  // the trainer's handler only sets a flag
  };
  const TrainResult r = train(c);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.step, 3);
  EXPECT_EQ(r.checkpoint, dir + "/checkpoints/step_0000003.pt");
  EXPECT_EQ(latest_checkpoint(dir + "/checkpoints"), r.checkpoint);
  const TrainingState s = load_checkpoint(r.checkpoint, {}, false);
  EXPECT_EQ(s.step, 3);
  EXPECT_EQ(s.data_position.index % 4, 0);  // three full batches of 4 consumed
  EXPECT_EQ(s.data_position.epoch * 60000 + s.data_position.index, 12);
}

TEST(Checkpoint, AFailedWriteLeavesThePreviousFileIntact) {
  const std::string dir = test::temp_dir("atomic");
  const TrainConfig c = test::tiny_config(dir);
  torch::manual_seed(0);
  Generator g(c.model);
  Discriminator d(c.model);
  const std::string path = dir + "/ck.pt";
  TrainingState s;
  s.step = 7;
  s.config_text = "first";
  save_checkpoint(path, c.model, {g, d}, s);
  const std::string before = test::file_contents(path);
  // Make the write fail: a directory sits where the temporary file would go.
  fs::create_directories(temporary_path_for(path));
  s.step = 8;
  {
    torch::NoGradGuard no_grad;
    for (auto& p : g->parameters()) p.add_(1);
  }
  EXPECT_ANY_THROW(save_checkpoint(path, c.model, {g, d}, s));
  EXPECT_EQ(test::file_contents(path), before);
  const TrainingState r = load_checkpoint(path, {}, false);
  EXPECT_EQ(r.step, 7);
  EXPECT_EQ(r.config_text, "first");
  EXPECT_THROW(load_checkpoint(dir + "/missing.pt", {}, false), CheckpointError);
  std::ofstream(dir + "/garbage.pt") << "not a checkpoint";
  EXPECT_THROW(load_checkpoint(dir + "/garbage.pt", {}, false), CheckpointError);
}

}  // namespace
}  // namespace hamgan
