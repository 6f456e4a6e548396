// Checkpoint files and the checkpoint directory: atomic writes, completeness
// markers, fallback from a bad `latest`, format versions; the state's noise
// stream; the run's provenance record.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/rng.h"
#include "core/seeds.h"
#include "gan/checkpoint/archive.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/step/steps.h"
#include "gan/train/trainer.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

TEST(Checkpoint, AFailedWriteLeavesThePreviousFileIntact) {
  const std::string dir = test::temp_dir("atomic");
  const TrainConfig c = test::tiny_config(dir);
  TrainState s(c, torch::kCPU);
  const std::string path = dir + "/ck.pt";
  s.step = 7;
  s.save(path);
  const std::string before = test::file_contents(path);
  EXPECT_TRUE(checkpoint_is_complete(path));
  // Make the write fail: a directory sits where the temporary file would go.
  fs::create_directories(temporary_path_for(path));
  s.step = 8;
  {
    torch::NoGradGuard no_grad;
    for (auto& p : s.g->parameters()) p.add_(1);
  }
  EXPECT_ANY_THROW(s.save(path));
  EXPECT_EQ(test::file_contents(path), before);
  TrainState r(c, torch::kCPU);
  r.load(path);
  EXPECT_EQ(r.step, 7);
  EXPECT_THROW(CheckpointReader(dir + "/missing.pt"), CheckpointError);
  std::ofstream(dir + "/garbage.pt") << "not a checkpoint";
  EXPECT_THROW(CheckpointReader(dir + "/garbage.pt"), CheckpointError);
}

TEST(Checkpoint, ANewerFormatIsRefusedNamingBothVersions) {
  const std::string path = test::temp_dir("newer") + "/future.pt";
  CheckpointWriter w(kCheckpointFormatVersion + 1);
  w.put("step", int64_t{1});
  w.save(path);
  try {
    CheckpointReader r(path);
    FAIL() << "a newer format must be refused";
  } catch (const CheckpointError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("format " + std::to_string(kCheckpointFormatVersion + 1)), std::string::npos) << msg;
    EXPECT_NE(msg.find("(" + std::to_string(kCheckpointFormatVersion) + ")"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(Checkpoint, FormatsFromTheOldestReadOnAndOlderOnesAreRefused) {
  const std::string dir = test::temp_dir("older");
  for (int64_t v = kOldestCheckpointFormatVersion - 1; v <= kCheckpointFormatVersion; ++v) {
    CheckpointWriter w(v);
    w.put("step", int64_t{1});
    w.save(dir + "/v" + std::to_string(v) + ".pt");
  }
  for (int64_t v = kOldestCheckpointFormatVersion; v <= kCheckpointFormatVersion; ++v)
    EXPECT_EQ(CheckpointReader(dir + "/v" + std::to_string(v) + ".pt").get_int("step"), 1) << v;
  try {
    CheckpointReader r(dir + "/v" + std::to_string(kOldestCheckpointFormatVersion - 1) + ".pt");
    FAIL() << "a format older than the oldest readable must be refused";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("is older than this hamgan reads"), std::string::npos) << e.what();
  }
}

// A run with checkpoints at steps 2 and 4; returns its checkpoint directory.
std::string run_with_two_checkpoints(const std::string& name, TrainConfig& c) {
  const std::string dir = test::temp_dir(name);
  c = test::tiny_config(dir);
  c.steps = 4;
  train(c);
  return dir + "/checkpoints";
}

TEST(Checkpoint, ATruncatedLatestFallsBackToTheNewestGoodOne) {
  TrainConfig c;
  const std::string ck = run_with_two_checkpoints("truncated", c);
  const std::string newest = ck + "/step_0000004.pt", older = ck + "/step_0000002.pt";
  fs::resize_file(newest, fs::file_size(newest) / 2);
  EXPECT_THROW(CheckpointReader{newest}, CheckpointError);
  testing::internal::CaptureStderr();
  EXPECT_EQ(latest_checkpoint(ck), older);
  const std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find(newest), std::string::npos) << warning;
  EXPECT_NE(warning.find(older), std::string::npos) << warning;
  // Resuming continues from step 2 and reaches step 4 again.
  c.resume = ResumeMode::kYes;
  const TrainResult r = train(c);
  EXPECT_EQ(r.step, 4);
  EXPECT_TRUE(checkpoint_is_complete(newest));
}

TEST(Checkpoint, AFileWithoutItsCompletenessMarkerIsNotTrusted) {
  TrainConfig c;
  const std::string ck = run_with_two_checkpoints("unmarked", c);
  fs::remove(completeness_marker_path(ck + "/step_0000004.pt"));
  testing::internal::CaptureStderr();
  EXPECT_EQ(latest_checkpoint(ck), ck + "/step_0000002.pt");
  testing::internal::GetCapturedStderr();
  // `latest` naming a missing file falls back the same way.
  fs::remove(ck + "/step_0000004.pt");
  testing::internal::CaptureStderr();
  EXPECT_EQ(latest_checkpoint(ck), ck + "/step_0000002.pt");
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(resolve_checkpoint_path(fs::path(ck).parent_path().string()), ck + "/step_0000002.pt");
}

TEST(TrainStateNoise, IsItsOwnStreamSeededPerRank) {
  TrainConfig c = test::tiny_config(test::temp_dir("noise"));
  TrainState a(c, torch::kCPU), b(c, torch::kCPU, /*rank=*/1);
  torch::manual_seed(999);  // the global stream does not reach the noise stream
  const auto [za, ya] = draw_noise(a, 6);
  at::Generator want = make_cpu_generator(rank_noise_seed(c.seed, 0));
  EXPECT_TRUE(torch::equal(za, torch::randn({6, c.model.z_dim}, want)));
  EXPECT_TRUE(torch::equal(ya, torch::randint(0, c.model.num_classes, {6}, want, torch::kLong)));
  const auto [zb, yb] = draw_noise(b, 6);
  EXPECT_FALSE(torch::equal(za, zb));
  EXPECT_NE(rank_noise_seed(c.seed, 0), c.seed);
}

TEST(Provenance, RecordsTheRevisionTheCommandAndTheVersions) {
  const std::string dir = test::temp_dir("provenance");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 1;
  train(c);
  const std::string text = test::file_contents(dir + "/provenance.json");
  std::string rev;
  if (test::run_command("git -C " HAMGAN_SOURCE_DIR " rev-parse HEAD", &rev) == 0) {
    EXPECT_NE(text.find("\"git_revision\": \"" + rev.substr(0, 40) + "\""), std::string::npos) << text;
  }
  // Read back with Python's json, an independent parser.
  std::string check;
  ASSERT_EQ(test::run_command(
      HAMGAN_PYTHON " -c \"import json,sys,torch; p=json.load(open(sys.argv[1])); "
      "print(p['libtorch'].split('+')[0]==torch.__version__.split('+')[0], p['device'], p['world_size'], p['precision'])\" " +
      dir + "/provenance.json", &check), 0) << check;
  EXPECT_EQ(check, "True cpu 1 fp32\n");
}

}  // namespace
}  // namespace hamgan
