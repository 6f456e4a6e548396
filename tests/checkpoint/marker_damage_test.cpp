// A completeness marker changed by one byte, or cut down to its size, must not
// turn the SHA-256 check off: the checkpoint behind it is treated as damaged
// (refused when named, skipped by `latest`), while a file written before
// markers held a digest still loads with its size-only marker.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "gan/checkpoint/archive.h"
#include "gan/checkpoint/run_dir.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

// Writes a checkpoint and flips a bit of one weight byte, so only the digest can tell.
std::string rotten_checkpoint(const std::string& dir, const std::string& name) {
  const std::string path = dir + "/" + name;
  CheckpointWriter w;
  w.put("w", torch::full({64}, 1.2345678f));
  w.save(path);
  std::string bytes = test::file_contents(path);
  const float planted = 1.2345678f;
  const size_t at = bytes.find(std::string(reinterpret_cast<const char*>(&planted), 4));
  EXPECT_NE(at, std::string::npos);
  bytes[at + 2] = static_cast<char>(bytes[at + 2] ^ 0x80);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

void expect_marker_refused(const std::string& path, const std::string& what) {
  try {
    CheckpointReader reader(path);
    ADD_FAILURE() << what << ": a damaged checkpoint loaded";
  } catch (const CheckpointError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("damaged"), std::string::npos) << what << ": " << m;
    EXPECT_NE(m.find(".done"), std::string::npos) << what << ": " << m;  // names the marker
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  EXPECT_TRUE(checkpoint_is_damaged(path)) << what;
}

TEST(CheckpointIntegrity, AChangedOrCutMarkerDoesNotTurnTheDigestOff) {
  const std::string dir = test::scratch_dir("checkpoint", "marker_damage");
  const std::string path = rotten_checkpoint(dir, "ck.pt");
  const std::string marker_path = completeness_marker_path(path);
  const std::string marker = test::file_contents(marker_path);
  ASSERT_EQ(marker.substr(marker.find(' ') + 1, 7), "sha256:");
  const std::string size = marker.substr(0, marker.find(' '));
  std::string sha257 = marker;
  sha257[marker.find("sha256:") + 5] = '7';
  std::string cut_digest = marker;
  cut_digest.erase(cut_digest.size() - 5, 4);
  std::string upper = marker;
  upper[upper.size() - 2] = 'X';
  for (const auto& [what, text] : std::vector<std::pair<std::string, std::string>>{
           {"sha257", sha257}, {"cut to its size", size + "\n"}, {"size alone, no newline", size},
           {"cut digest", cut_digest}, {"a stray letter", upper}, {"trailing text", marker.substr(0, marker.size() - 1) + " x\n"}}) {
    std::ofstream(marker_path, std::ios::binary | std::ios::trunc) << text;
    expect_marker_refused(path, what);
  }
}

TEST(CheckpointIntegrity, LatestSkipsACheckpointWhoseMarkerWasCut) {
  const std::string dir = test::scratch_dir("checkpoint", "marker_latest");
  CheckpointWriter older;
  older.put("w", torch::ones({4}));
  older.save(dir + "/" + checkpoint_file_name(2));
  const std::string newest = rotten_checkpoint(dir, checkpoint_file_name(4));
  std::ofstream(dir + "/latest") << checkpoint_file_name(4) << "\n";
  std::ofstream(completeness_marker_path(newest), std::ios::trunc) << fs::file_size(newest) << "\n";
  testing::internal::CaptureStderr();
  EXPECT_EQ(latest_checkpoint(dir), dir + "/" + checkpoint_file_name(2));
  testing::internal::GetCapturedStderr();
}

}  // namespace
}  // namespace hamgan
