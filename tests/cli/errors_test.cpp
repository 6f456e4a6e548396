// Bad command lines and config files: one line `hamgan: error: ...` naming the
// thing at fault and the fix, exit 1 (before: CLI11's raw text, exit 104-114).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/common/test_util.h"

namespace hamgan {
namespace {
using test::run_command;

struct Outcome {
  int code;
  std::string output;
};

Outcome hamgan(const std::string& args) {
  Outcome o;
  o.code = run_command(std::string(test::hamgan_bin()) + " " + args + " 2>&1", &o.output);
  return o;
}

std::string config_file(const std::string& name, const std::string& text) {
  const std::string path = test::scratch_dir("cli", name) + "/config.toml";
  std::ofstream(path) << text;
  return path;
}

// Exit 1 and exactly one line, `hamgan: error: ` followed by text containing every part.
void expect_one_line_error(const Outcome& o, const std::vector<std::string>& parts) {
  EXPECT_EQ(o.code, 1) << o.output;
  EXPECT_EQ(o.output.rfind("hamgan: error: ", 0), 0u) << o.output;
  EXPECT_EQ(o.output.find('\n'), o.output.size() - 1) << o.output;
  for (const auto& p : parts) EXPECT_NE(o.output.find(p), std::string::npos) << "missing '" << p << "' in " << o.output;
}

class CliErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  }
};

TEST_F(CliErrors, AMistypedCommandIsNamedWithTheClosestOne) {
  expect_one_line_error(hamgan("trian"), {"unknown command 'trian'", "did you mean 'train'?", "sample"});
  expect_one_line_error(hamgan(""), {"no command given", "train"});
}

TEST_F(CliErrors, ARepeatedOptionIsNamed) {
  expect_one_line_error(hamgan("train --seed 1 --seed 2"), {"--seed: given 2 times"});
}

TEST_F(CliErrors, AnUnknownOptionNamesTheCommandsHelp) {
  expect_one_line_error(hamgan("train --nonsense"), {"--nonsense", "'hamgan train --help'"});
}

TEST_F(CliErrors, ARangeErrorHasNo309DigitBound) {
  const Outcome o = hamgan("sample --checkpoint x --out y --n -5");
  expect_one_line_error(o, {"--n: -5 is out of range; use a value >= 0"});
  EXPECT_LT(o.output.size(), 120u) << o.output;
}

TEST_F(CliErrors, ABadValueInAConfigFileNamesTheFileLineAndKey) {
  const std::string path = config_file("bad_value", "# run\nbatch_size = -16\n");
  expect_one_line_error(hamgan("train --config " + path), {path + ":2: batch_size: must be >= 1, got '-16'"});
}

TEST_F(CliErrors, ADuplicateKeyInAConfigFileIsNamedWithItsLine) {
  const std::string path = config_file("duplicate", "seed = 1\nseed = 2\n");
  expect_one_line_error(hamgan("train --config " + path), {path + ":2:", "seed"});
}

TEST_F(CliErrors, MalformedTomlNamesLineAndColumn) {
  const std::string path = config_file("malformed", "size = [1, 2\n");
  expect_one_line_error(hamgan("train --config " + path), {path + ":1:", "array"});
}

TEST_F(CliErrors, AnUnknownKeyNamesTheFileLineAndKey) {
  const std::string path = config_file("unknown_key", "seed = 1\nlearning_rate = 0.1\n");
  expect_one_line_error(hamgan("train --config " + path), {path + ":2: unknown key 'learning_rate'"});
}

TEST_F(CliErrors, AFlagGivenANonBooleanIsNamed) {
  const std::string path = config_file("flag_value", "resume = 3\n");
  const Outcome o = hamgan("train --config " + path);
  EXPECT_EQ(o.code, 1) << o.output;
}

TEST_F(CliErrors, ValidTomlThatTheOldReaderRejectedIsRead) {
  // Literal string, digit separators, an exponent for an integer key, a comment after a string.
  const std::string path = config_file("valid_toml",
                                       "g_block = 'sa'\nbatch_size = 1_000\nsteps = 1e9\nrun_dir = \"x\" # comment\n");
  const Outcome o = hamgan("model-info --config " + path);
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("sa"), std::string::npos) << o.output;
}

}  // namespace
}  // namespace hamgan
