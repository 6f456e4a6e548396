// `hamgan export RUN --hub DIR` on a real Fashion-MNIST run with an evaluation:
// the folder's files, its refusals, and (tests/python/hub_folder_check.py) the
// card read by huggingface_hub against the run's last evaluation row,
// hamgan.from_pretrained from the folder and from an offline Hub cache, and
// torch.hub, all equal to `hamgan sample --float`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "data/dataset.h"
#include "tests/common/classifier_test_util.h"
#include "tests/common/python_reference.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

std::string hamgan(const std::string& args, int* status) {
  std::string out;
  *status = test::run_command(std::string(test::hamgan_bin()) + " " + args + " 2>&1", &out);
  return out;
}

bool has_temporaries(const std::string& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".hub.") != std::string::npos) return true;
  return false;
}

TEST(HubExport, ARunBecomesAFolderThatTheHubToolsAndFromPretrainedRead) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  if (!fs::exists(kDefaultFashionMnistDir)) GTEST_SKIP() << "Fashion-MNIST not installed";
  const std::string dir = test::scratch_dir("export", "hub"), run = dir + "/run", hub = dir + "/hub";
  int status = 0;
  std::string out = hamgan("train --run_dir " + run + " --steps 2" + test::tiny_cli_args() +
                               " --threads 1 --eval_every 2 --eval_n 8 --classifier " + test::tiny_classifier(dir),
                           &status);
  ASSERT_EQ(status, 0) << out;
  out = hamgan("export " + run + " --hub " + hub + " --license mit --standing_stats 0", &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* file : {"model.safetensors", "config.json", "README.md", "metrics.jsonl", "config.toml",
                           "samples/step_0000002.png"})
    EXPECT_TRUE(fs::is_regular_file(fs::path(hub) / file)) << file;
  out = hamgan("sample --checkpoint " + run + " --float --n 6 --batch_size 6 --seed 3 --standing_stats 0 --out " + dir +
                   "/samples.npz",
               &status);
  ASSERT_EQ(status, 0) << out;

  // Refusals: one line naming the option, nothing written, no temporary left.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"export " + run + " --hub " + hub, "--hub"},  // not empty
      {"export " + run + "/checkpoints/step_0000002.pt --hub " + dir + "/from_file", "run directory"},
      {"export " + run + " --hub " + dir + "/both --out " + dir + "/G.safetensors", "not both"},
      {"export " + run + " --hub " + dir + "/bad_license --license 'MIT License'", "--license"},
      {"export " + run + " --hub " + dir + "/absent/parent/hub", "does not exist"},
  };
  for (const auto& [args, word] : refused) {
    const std::string refusal = hamgan(args, &status);
    EXPECT_NE(status, 0) << args;
    EXPECT_NE(refusal.find(word), std::string::npos) << args << ": " << refusal;
    EXPECT_EQ(refusal.find('\n'), refusal.size() - 1) << args << ": " << refusal;
  }
  for (const char* absent : {"from_file", "both", "bad_license", "absent"})
    EXPECT_FALSE(fs::exists(fs::path(dir) / absent)) << absent;
  EXPECT_FALSE(has_temporaries(dir));

  // --class_names: a file of the model's count goes into the card in order; another count is refused.
  std::ofstream(dir + "/names.txt") << "zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n";
  std::ofstream(dir + "/short.txt") << "zero\none\n";
  out = hamgan("export " + run + " --hub " + dir + "/named --with_d --class_names " + dir + "/names.txt", &status);
  ASSERT_EQ(status, 0) << out;
  const std::string card = test::file_contents(dir + "/named/README.md");
  EXPECT_NE(card.find("| 0 | zero |\n| 1 | one |"), std::string::npos) << card;
  EXPECT_NE(card.find("| 9 | nine |"), std::string::npos) << card;
  const std::string refusal = hamgan("export " + run + " --hub " + dir + "/short --class_names " + dir + "/short.txt",
                                     &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(refusal.find("2 names; the model has 10 classes"), std::string::npos) << refusal;
  EXPECT_FALSE(fs::exists(dir + "/short"));
  RUN_REFERENCE("hub_folder_check.py", hub + " " + run + " " + dir + "/samples.npz " + dir + " " + dir + "/named");
}

}  // namespace
}  // namespace hamgan
