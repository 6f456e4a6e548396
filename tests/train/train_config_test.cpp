// The TrainConfig field table: the resolved config text and per-key validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "gan/train/run_control.h"
#include "gan/train/train_config.h"
#include "modules/ham_block.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

TEST(TrainConfig, ResolvedTextReadsBackToTheSameConfig) {
  TrainConfig c = test::tiny_config("runs/x");
  c.loss = LossType::kNonSaturating;
  c.g_lr = 3e-5;
  c.flip = true;
  c.seed = 17;
  c.dataset = "data/a \"b\".hdf5";
  const std::string text = resolved_config_text(c);
  EXPECT_EQ(text.rfind("# resolved by hamgan train", 0), 0u) << text;
  EXPECT_LT(text.find("\nham_rank = 2\n"), text.find("\nbatch_size = 4\n")) << text;  // model keys first
  EXPECT_NE(text.find("\ng_lr = 3e-05\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nloss = \"ns\"\n"), std::string::npos) << text;
  const TrainConfig r = train_config_from_text(text);
  EXPECT_EQ(resolved_config_text(r), text);
  EXPECT_EQ(r.loss, LossType::kNonSaturating);
  EXPECT_DOUBLE_EQ(r.g_lr, 3e-5);
  EXPECT_TRUE(r.flip);
  EXPECT_EQ(r.seed, 17u);
  EXPECT_EQ(r.dataset, c.dataset);
  EXPECT_EQ(r.model.g_block.name, "ham");
  EXPECT_EQ(parse_ham_options(r.model.d_context()).rank, 2);
  EXPECT_EQ(r.run_dir, "runs/x");
}

TEST(TrainConfig, ValidationNamesTheKey) {
  auto expect_key = [](const std::string& key, auto mutate) {
    TrainConfig c = test::tiny_config("runs/x");
    mutate(c);
    try {
      c.validate();
      ADD_FAILURE() << "accepted bad " << key;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  expect_key("batch_size", [](TrainConfig& c) { c.batch_size = 0; });
  expect_key("steps", [](TrainConfig& c) { c.steps = -1; });
  expect_key("beta1", [](TrainConfig& c) { c.beta1 = 1.0; });
  expect_key("g_lr", [](TrainConfig& c) { c.g_lr = 0; });
  expect_key("ema_decay", [](TrainConfig& c) { c.ema_decay = -0.5; });
  expect_key("keep_checkpoints", [](TrainConfig& c) { c.keep_checkpoints = 0; });
  expect_key("run_dir", [](TrainConfig& c) { c.run_dir = ""; });
  expect_key("device", [](TrainConfig& c) { c.device = "gpu"; });
  expect_key("ham_train_steps", [](TrainConfig& c) { c.model.block_options["ham_train_steps"] = "0"; });
  EXPECT_NO_THROW(test::tiny_config("runs/x").validate());
  // Choice keys are enums, so a bad name is refused when the text is read, naming the key.
  for (const std::string key : {"dataset_split", "precision", "dist_backend", "noise_streams"}) {
    try {
      train_config_from_text(key + " = \"val\"\n");
      ADD_FAILURE() << "accepted bad " << key;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

TEST(TrainConfig, EveryTableKeyIsInTheResolvedTextAndReadsBack) {
  // Model keys, then train keys, one line each; run control stays out.
  TrainConfig c = test::tiny_config("runs/x");
  c.eval_metrics = {"is", "fid_inception"};
  c.noise_streams = NoiseStreams::kGlobal;
  c.channels_last = true;
  const std::string text = resolved_config_text(c);
  const TrainConfig r = train_config_from_text(text);
  size_t keys = 0;
  auto expect_row = [&](const std::string& key, const std::string& original, const std::string& read_back) {
    ++keys;
    EXPECT_NE(text.find("\n" + key + " = "), std::string::npos) << key;
    EXPECT_EQ(read_back, original) << key;
  };
  for (const auto& f : model_config_fields()) expect_row(f.spec.key, f.get(c.model), f.get(r.model));
  for (const auto& f : train_config_fields()) expect_row(f.spec.key, f.get(c), f.get(r));
  EXPECT_EQ(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')), keys + 1) << text;  // + the comment
  EXPECT_EQ(text.find("resume"), std::string::npos);
  EXPECT_EQ(text.find("progress"), std::string::npos);
  for (const auto& f : train_run_control_fields())
    EXPECT_EQ(text.find("\n" + f.spec.key + " = "), std::string::npos) << f.spec.key << " is run control";
  EXPECT_NE(text.find("\nbeta1 = 0.0\n"), std::string::npos) << text;  // floats stay floats in TOML
}

TEST(TrainConfig, EveryTrainKeySaysWhatAResumeMayDoWithIt) {
  for (const auto& f : train_config_fields())
    EXPECT_NE(f.spec.resume, ResumeRule::kUndeclared) << f.spec.key << ": declare its ResumeRule";
  auto rule = [](const std::string& key) {
    for (const auto& f : train_config_fields())
      if (f.spec.key == key) return f.spec.resume;
    return ResumeRule::kUndeclared;
  };
  for (const char* key : {"seed", "batch_size", "d_steps", "accumulate", "dataset", "dataset_split", "flip", "loss",
                          "beta1", "beta2", "adam_eps", "ema", "ema_decay", "ema_start"})
    EXPECT_EQ(rule(key), ResumeRule::kMustMatch) << key;
  for (const char* key : {"run_dir", "tensorboard"}) EXPECT_EQ(rule(key), ResumeRule::kNotCompared) << key;
  for (const char* key : {"g_lr", "steps"}) EXPECT_EQ(rule(key), ResumeRule::kMayChange) << key;  // logged
}

TEST(TrainConfig, EvalMetricsIsAListOfKnownNamesAndBestMetricMustBeAmongThem) {
  TrainConfig c = train_config_from_text("eval_metrics = [\"fid_inception\", 'is'] # comment\neval_every = 5\n");
  EXPECT_EQ(c.eval_metrics, (std::vector<std::string>{"fid_inception", "is"}));
  const std::string text = resolved_config_text(c);
  EXPECT_NE(text.find("\neval_metrics = [\"fid_inception\", \"is\"]\n"), std::string::npos) << text;
  EXPECT_EQ(train_config_from_text(text).eval_metrics, c.eval_metrics);
  EXPECT_EQ(train_config_from_text("eval_metrics = []\n").eval_metrics, std::vector<std::string>{});

  auto error_of = [](const std::string& text) {
    try {
      train_config_from_text(text).validate();
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("eval_metrics = [\"fid\"]\n").find("eval_metrics lists names from class_consistency, "
                                                          "fid_classifier, fid_inception, sfid, dinov2, is; 'fid' is not one "
                                                          "of them"),
            std::string::npos);
  EXPECT_NE(error_of("eval_metrics = [\"is\", \"is\"]\n").find("names 'is' twice"), std::string::npos);
  EXPECT_NE(error_of("eval_every = 10\nbest_metric = \"is\"\n").find("best_metric is is not evaluated"),
            std::string::npos);

  // auto: the Inception FID when evaluated, else the classifier's; none without evaluation.
  EXPECT_EQ(resolved_best_metric(c), "fid_inception");
  c.eval_metrics = {"is", "fid_classifier"};
  EXPECT_EQ(resolved_best_metric(c), "fid_classifier");
  c.classifier = "";  // no classifier: its metrics are not evaluated
  EXPECT_EQ(evaluated_metrics(c), std::vector<std::string>{"is"});
  EXPECT_EQ(resolved_best_metric(c), "");
  c.best_metric = "is";
  EXPECT_EQ(resolved_best_metric(c), "is");
  c.eval_every = 0;
  EXPECT_TRUE(evaluated_metrics(c).empty());
}

}  // namespace
}  // namespace hamgan
