// Bit rot in a checkpoint: a flipped bit inside a weight keeps the file's size
// and its zip structure, and LibTorch does not check the records' CRCs, so only
// the SHA-256 in the completeness marker can tell. Each test flips one exponent
// bit of a weight the test planted, so the change is inside tensor data.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "gan/checkpoint/archive.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/train/trainer.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

constexpr float kPlanted = 1.2345678f;

// Sets G's parameters to a value unlikely to occur by chance, so its bytes can be found in the file.
void plant(TrainState& s) {
  torch::NoGradGuard no_grad;
  for (auto& p : s.g->parameters()) p.fill_(kPlanted);
}

// Flips the lowest exponent bit of the first float32 `kPlanted` in the file: its value doubles
// or halves while the file keeps its size. Returns the byte offset.
size_t flip_planted_exponent_bit(const std::string& path) {
  std::string bytes = test::file_contents(path);
  char pattern[4];
  std::memcpy(pattern, &kPlanted, 4);
  const size_t at = bytes.find(std::string(pattern, 4));
  EXPECT_NE(at, std::string::npos) << "planted weight not found in " << path;
  bytes[at + 2] = static_cast<char>(bytes[at + 2] ^ 0x80);  // little endian: byte 2 holds the exponent's low bit
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return at;
}

TEST(CheckpointIntegrity, AFlippedBitInAWeightIsRefusedNamingTheFile) {
  const std::string dir = test::temp_dir("bitrot");
  const TrainConfig c = test::tiny_config(dir);
  TrainState s(c, torch::kCPU);
  plant(s);
  const std::string path = dir + "/ck.pt";
  s.save(path);
  const auto size = fs::file_size(path);
  flip_planted_exponent_bit(path);
  ASSERT_EQ(fs::file_size(path), size);
  EXPECT_TRUE(checkpoint_is_complete(path));  // the size alone cannot tell
  // Without the digest the rotten weight would load as 2.469 or 0.617 (the independent check
  // of what the test flipped): read the file while its marker vouches for nothing.
  const std::string marker = test::file_contents(completeness_marker_path(path));
  fs::remove(completeness_marker_path(path));
  {
    TrainState r(c, torch::kCPU);
    r.load(path);
    const float first = r.g->parameters()[0].flatten()[0].item<float>();
    EXPECT_TRUE(first == kPlanted * 2 || first == kPlanted / 2) << first;
  }
  std::ofstream(completeness_marker_path(path)) << marker;
  try {
    TrainState r(c, torch::kCPU);
    r.load(path);
    FAIL() << "a checkpoint whose bytes differ from its digest was loaded";
  } catch (const CheckpointError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find(path + ": damaged"), 0u) << m;
    EXPECT_NE(m.find("SHA-256"), std::string::npos) << m;
    EXPECT_NE(m.find("use an earlier checkpoint"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  EXPECT_TRUE(checkpoint_is_damaged(path));
}

TEST(CheckpointIntegrity, ARottenLatestFallsBackAndTheRunResumesFromTheOneBefore) {
  const std::string dir = test::temp_dir("bitrot_latest");
  TrainConfig c = test::tiny_config(dir);
  c.steps = 4;
  train(c);
  const std::string ck = dir + "/checkpoints", newest = ck + "/step_0000004.pt", older = ck + "/step_0000002.pt";
  // Rot one byte in the middle of the newest file's largest stretch of weights.
  std::string bytes = test::file_contents(newest);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x40);
  std::ofstream(newest, std::ios::binary | std::ios::trunc) << bytes;
  testing::internal::CaptureStderr();
  EXPECT_EQ(latest_checkpoint(ck), older);
  const std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find(newest), std::string::npos) << warning;
  EXPECT_NE(warning.find("damaged"), std::string::npos) << warning;
  c.resume = ResumeMode::kYes;
  testing::internal::CaptureStderr();
  const TrainResult r = train(c);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.step, 4);
  CheckpointReader rewritten(newest);  // written again from step 2, digest and all
  EXPECT_FALSE(checkpoint_is_damaged(newest));
}

TEST(CheckpointIntegrity, FilesWithoutADigestStillLoad) {
  const std::string dir = test::temp_dir("nodigest");
  const std::string path = dir + "/ck.pt";
  // A file as written before markers held a digest: its marker records the size alone.
  CheckpointWriter w(kCheckpointFormatVersion, /*digest_in_marker=*/false);
  w.put("x", torch::ones({4}));
  w.save(path);
  const std::string marker = test::file_contents(completeness_marker_path(path));
  EXPECT_NE(marker.find(" sha256:"), std::string::npos) << marker;
  std::ofstream(completeness_marker_path(path), std::ios::trunc) << fs::file_size(path) << "\n";
  EXPECT_TRUE(checkpoint_is_complete(path));
  EXPECT_NO_THROW(CheckpointReader{path});
  fs::remove(completeness_marker_path(path));  // a file handed over without its marker
  EXPECT_NO_THROW(CheckpointReader{path});
}

}  // namespace
}  // namespace hamgan
