// A run directory whose checkpoints are all damaged keeps them: every command
// refuses it in one line naming the files and the ways on, and nothing in it is
// overwritten, truncated or pruned (before: `train` started over at step 0 in
// it, `--resume auto` said "no checkpoint; starting fresh", both exit 0).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "gan/checkpoint/run_dir.h"
#include "tests/common/reliability_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;
using test::error_line;
using test::file_contents;
using test::run_command;
using test::train_cmd;

// Flips one bit in the middle of the file: same size, same zip structure.
void rot(const std::string& path) {
  std::string bytes = file_contents(path);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x10);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Every file under `dir` with its bytes (less the lock, which holds the pid of its last holder).
std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != ".lock") files[e.path().string()] = file_contents(e.path().string());
  return files;
}

// A 4-step run (checkpoints at 2 and 4) with both checkpoints rotten; returns a good copy of step 2.
std::string damaged_run(const std::string& dir) {
  std::string out;
  EXPECT_EQ(run_command(train_cmd(dir, 4), &out), 0) << out;
  const std::string ck = dir + "/checkpoints/";
  const std::string backup = dir + "_backup.pt";
  fs::copy_file(ck + "step_0000002.pt", backup, fs::copy_options::overwrite_existing);
  fs::copy_file(ck + "step_0000002.pt.done", backup + ".done", fs::copy_options::overwrite_existing);
  rot(ck + "step_0000002.pt");
  rot(ck + "step_0000004.pt");
  return backup;
}

TEST(DamagedRun, EveryCommandRefusesItNamingTheFilesAndNothingIsTouched) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::dir_for("all_damaged");
  damaged_run(dir);
  const auto before = snapshot(dir);
  const std::string bin = test::hamgan_bin();
  for (const std::string extra : {"", "--resume", "--resume auto"}) {
    std::string out;
    EXPECT_EQ(run_command(train_cmd(dir, 6, extra), &out), 1) << extra << ": " << out;
    const std::string line = error_line(out);
    EXPECT_NE(line.find("2 checkpoints, none loadable (step_0000002.pt, step_0000004.pt"), std::string::npos) << out;
    EXPECT_NE(line.find("nothing in it was changed"), std::string::npos) << line;
    EXPECT_NE(line.find("--resume FILE"), std::string::npos) << line;
    EXPECT_NE(line.find("another --run_dir"), std::string::npos) << line;
  }
  for (const std::string& cmd : {bin + " sample --checkpoint " + dir + " --n 4 --out " + dir + "_s.png 2>&1",
                                 bin + " export " + dir + " --out " + dir + "_g.safetensors 2>&1"}) {
    std::string out;
    EXPECT_EQ(run_command(cmd, &out), 1) << cmd << ": " << out;
    EXPECT_NE(error_line(out).find("step_0000002.pt, step_0000004.pt: incomplete or damaged"), std::string::npos)
        << out;
  }
  EXPECT_EQ(snapshot(dir), before);  // no checkpoint rewritten or pruned, metrics.jsonl not truncated
}

TEST(DamagedRun, ResumeFromANamedGoodCopySetsTheDamagedAsideAndContinues) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::dir_for("resume_named");
  const std::string backup = damaged_run(dir);
  std::string out;
  ASSERT_EQ(run_command(train_cmd(dir, 6, "--resume " + backup), &out), 0) << out;
  EXPECT_NE(out.find("train: resumed from step 2 (" + backup + ")"), std::string::npos) << out;
  const std::string ck = dir + "/checkpoints/";
  EXPECT_TRUE(fs::exists(ck + "step_0000002.pt.damaged")) << out;  // kept for whoever wants to look
  EXPECT_TRUE(fs::exists(ck + "step_0000004.pt.damaged")) << out;
  EXPECT_EQ(latest_checkpoint(ck), ck + "step_0000006.pt");
  // A named file older than a good checkpoint of the run would be written over: refused.
  EXPECT_EQ(run_command(train_cmd(dir, 8, "--resume " + backup), &out), 1) << out;
  EXPECT_NE(error_line(out).find("checkpoints/step_0000004.pt is later and loads"), std::string::npos) << out;
  EXPECT_EQ(run_command(train_cmd(dir, 8, "--resume " + dir + "/nothing.pt"), &out), 1) << out;
  EXPECT_NE(error_line(out).find("nothing.pt: no such checkpoint file"), std::string::npos) << out;
}

TEST(DamagedRun, ACheckpointsPathThatIsAFileIsOneLine) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::dir_for("checkpoints_file");
  std::ofstream(dir + "/checkpoints") << "not a directory";
  std::string out;
  EXPECT_EQ(run_command(train_cmd(dir, 2, "--resume auto"), &out), 1) << out;
  EXPECT_NE(error_line(out).find(dir + "/checkpoints is a file, not the run's checkpoint directory"), std::string::npos)
      << out;
  EXPECT_EQ(file_contents(dir + "/checkpoints"), "not a directory");
}

}  // namespace
}  // namespace hamgan
