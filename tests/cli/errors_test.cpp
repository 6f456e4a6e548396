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
  expect_one_line_error(hamgan("--nonsense"), {"unexpected --nonsense before a command; give a command first"});
}

TEST_F(CliErrors, ARepeatedOptionIsNamed) {
  expect_one_line_error(hamgan("train --seed 1 --seed 2"), {"--seed: given 2 times"});
  expect_one_line_error(hamgan("train --seed=1 --seed=2"), {"--seed: given 2 times"});
}

TEST_F(CliErrors, AnUnknownOptionNamesTheCommandsHelpOrTheClosestOption) {
  expect_one_line_error(hamgan("train --nonsense"),
                        {"unexpected --nonsense for 'hamgan train'", "'hamgan train --help'"});
  expect_one_line_error(hamgan("train --batchsize 8"), {"unexpected --batchsize 8 ", "did you mean --batch_size?"});
  // In the order given (CLI11 lists them back to front).
  expect_one_line_error(hamgan("train --lr_g -1"), {"unexpected --lr_g -1 for 'hamgan train'"});
}

TEST_F(CliErrors, ARangeErrorNamesTheValueAndTheRangeWithout309Digits) {
  const Outcome o = hamgan("sample --checkpoint x --out y --n -5");
  expect_one_line_error(o, {"--n: -5 is out of range; it must be >= 1"});  // INT:POSITIVE: >= 1, not ">= 0"
  EXPECT_LT(o.output.size(), 80u) << o.output;
  expect_one_line_error(hamgan("train --batch_size -16"), {"--batch_size: -16 is out of range; it must be >= 1"});
  expect_one_line_error(hamgan("plot x --width 10"), {"--width: 10 is out of range; it must be in [200, 4000]"});
  expect_one_line_error(hamgan("train --beta1 1.5"), {"--beta1: 1.5 is out of range; it must be in [0, 1)"});
  const std::string toml = config_file("compare", "");
  expect_one_line_error(hamgan("compare --configs " + toml + " --out y --eval_every -5"),
                        {"--eval_every: -5 is out of range; it must be >= -1"});
  expect_one_line_error(hamgan("fid a b --is_splits 0"), {"--is_splits: 0 is out of range; it must be >= 1"});
}

TEST_F(CliErrors, NumbersAreReadStrictly) {
  // Before: "Value abc not in range 0.000000 to 1797...", and 10^23 was clamped to 2^63-1 and accepted.
  expect_one_line_error(hamgan("sample --checkpoint x --out y --n abc"),
                        {"--n: 'abc' is not an integer; it must be an integer >= 1, like 64 (the default)"});
  expect_one_line_error(hamgan("sample --checkpoint x --out y --n 99999999999999999999999"),
                        {"--n: 99999999999999999999999 is out of range; it must be >= 1"});
  expect_one_line_error(hamgan("sample --checkpoint x --out y --truncation nan"),
                        {"--truncation: 'nan' is not a finite number; it must be a number >= 0"});
  expect_one_line_error(hamgan("sample --checkpoint x --out y --seed -3"),
                        {"--seed: -3 is out of range; it must be >= 0"});
  expect_one_line_error(hamgan("train --threads 99999999999999999999"),
                        {"--threads: 99999999999999999999 is out of range"});
  expect_one_line_error(hamgan("train --steps 1.5"), {"--steps: '1.5' is not an integer; it must be a whole number"});
  expect_one_line_error(hamgan("train --g_lr abc"), {"--g_lr: 'abc' is not a finite number; it must be a number"});
  // A leading zero is decimal, not octal.
  const Outcome ok = hamgan("model-info --g_ch 010");
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("g_ch 10,"), std::string::npos) << ok.output;
}

TEST_F(CliErrors, ChoicesBooleansAndEmptyValuesSayWhatIsAllowed) {
  expect_one_line_error(hamgan("model-info --resolution 7"),
                        {"--resolution: 7 is not allowed; it must be one of 32, 64, 128"});
  expect_one_line_error(hamgan("model-info --g_block xx"),
                        {"--g_block: 'xx' is not one of the choices; it must be one of none, sa"});
  expect_one_line_error(hamgan("data-info --split foo x"),
                        {"--split: 'foo' is not one of the choices; it must be one of train, test"});
  expect_one_line_error(hamgan("train --allow_config_change=maybe"),
                        {"--allow_config_change: 'maybe' is not a boolean; it must be true or false"});
  expect_one_line_error(hamgan("train --resume=maybe"),
                        {"--resume: 'maybe' is not one of the choices; it must be one of false, true, auto"});
  expect_one_line_error(hamgan("train --resume maybe"),
                        {"--resume: 'maybe' is not one of the choices; it must be one of false, true, auto"});
  expect_one_line_error(hamgan("train --dataset ''"), {"--dataset: the value is empty; it must not be empty"});
}

TEST_F(CliErrors, AMissingValueArgumentOrFileIsNamed) {
  expect_one_line_error(hamgan("plot x --width"), {"--width: no value given; use '--width INT'"});
  expect_one_line_error(hamgan("train --config"), {"--config: no value given; use '--config FILE'"});
  expect_one_line_error(hamgan("fid"), {"argument A is missing; see 'hamgan fid --help'"});
  expect_one_line_error(hamgan("fid-stats src"), {"--out is required; add '--out VALUE'"});
  expect_one_line_error(hamgan("compare --configs /nonexistent.toml --out x"),
                        {"--configs: /nonexistent.toml: no such file; give the path of an existing file"});
}

TEST_F(CliErrors, HelpAndVersionStillPrintAndSucceed) {
  Outcome o = hamgan("--version");
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(o.output, "hamgan 0.1.0\n");
  o = hamgan("train --help");
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("--batch_size"), std::string::npos) << o.output;
}

TEST_F(CliErrors, ABadValueInAConfigFileNamesTheFileLineAndKey) {
  const std::string path = config_file("bad_value", "# run\nbatch_size = -16\n");
  expect_one_line_error(hamgan("train --config " + path),
                        {path + ":2: batch_size: -16 is out of range; it must be >= 1"});
  // An option of the command itself, not of a field table.
  const std::string n = config_file("bad_n", "n = -5\n");
  expect_one_line_error(hamgan("sample --checkpoint x --out y --config " + n),
                        {n + ":1: n: -5 is out of range; it must be >= 1"});
  const std::string steps = config_file("fraction", "steps = 1.5\n");
  expect_one_line_error(hamgan("train --config " + steps), {steps + ":1: steps: '1.5' is not an integer"});
  const std::string many = config_file("array", "steps = [1, 2]\n");
  expect_one_line_error(hamgan("train --config " + many), {many + ":1: steps takes one value, got an array of 2"});
}

TEST_F(CliErrors, ADuplicateKeyInAConfigFileIsNamedWithItsLine) {
  const std::string path = config_file("duplicate", "seed = 1\nseed = 2\n");
  expect_one_line_error(hamgan("train --config " + path), {path + ":2:", "'seed' is set twice; keep one of the two"});
}

TEST_F(CliErrors, MalformedTomlNamesLineAndColumn) {
  const std::string path = config_file("malformed", "size = [1, 2\n");
  expect_one_line_error(hamgan("train --config " + path),
                        {path + ":1:14: error while parsing array", "fix the TOML there"});
  const std::string bytes = config_file("binary", std::string("\xff\xfe\x00x", 4));
  expect_one_line_error(hamgan("train --config " + bytes), {bytes + ":1:1: ", "utf-8"});
}

TEST_F(CliErrors, AMissingConfigFileOrADirectoryIsNamed) {
  expect_one_line_error(hamgan("train --config /nonexistent.toml"), {"/nonexistent.toml: config file not found"});
  const std::string dir = test::scratch_dir("cli", "config_dir");
  expect_one_line_error(hamgan("train --config " + dir), {dir + ": is a directory; give --config a TOML file"});
}

TEST_F(CliErrors, AnUnknownKeyNamesTheFileLineAndKey) {
  const std::string path = config_file("unknown_key", "seed = 1\nlearning_rate = 0.1\n");
  expect_one_line_error(hamgan("train --config " + path), {path + ":2: unknown key 'learning_rate'"});
}

TEST_F(CliErrors, AFlagGivenANonBooleanIsNamed) {
  const std::string path = config_file("flag_value", "allow_config_change = 3\n");
  expect_one_line_error(hamgan("train --config " + path),
                        {path + ":1: allow_config_change = 3 is not a boolean; use true or false"});
}

TEST_F(CliErrors, ValidTomlThatTheOldReaderRejectedIsRead) {
  // Literal string, digit separators, an exponent for an integer key, a comment after a string.
  const std::string path =
      config_file("valid_toml", "g_block = 'sa'\nbatch_size = 1_000\nsteps = 1e9\nrun_dir = \"x\" # comment\n");
  const Outcome o = hamgan("model-info --config " + path);
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("sa"), std::string::npos) << o.output;
}

TEST_F(CliErrors, AHamRankAboveTheChannelsSuggestsAValidRank) {
  // g_ch 4 gives the block 8 channels at 16x16; "ham_rank 0" alone was the old suggestion.
  expect_one_line_error(hamgan("model-info --g_block ham --ham_rank 100 --g_ch 4"),
                        {"ham_rank 100 is more than the block's 8 channels", "use a ham_rank from 1 to 8"});
}

TEST_F(CliErrors, AFailedPlotPrintsOnlyTheError) {
  // Before: "plot: wrote hamgan: error: ..." on one line.
  const std::string dir = test::scratch_dir("cli", "plot_empty");
  expect_one_line_error(hamgan("plot " + dir), {"metrics.jsonl"});
}

TEST_F(CliErrors, ATimeLimitWithoutDigitsIsRefusedNotReadAsNoLimit) {
  // Before: ":" and "1::" read as 0 seconds, which means no limit at all.
  for (const std::string bad : {":", "::", "1::", ":30", "1:"})
    expect_one_line_error(hamgan("train --time_limit " + bad),
                          {"--time_limit: '" + bad + "'", "must be a duration like 3h50m"});
}

TEST_F(CliErrors, APenaltyWeightThatOverflowsTheLossIsARangeError) {
  // Before: accepted, then "training diverged ... lower g_lr/d_lr" at the first penalty.
  for (const std::string key : {"r1_gamma", "r2_gamma", "lecam_weight"})
    expect_one_line_error(hamgan("train --" + key + " 1e39"), {"--" + key + ": ", " is out of range; it must be in [0, "});
}

}  // namespace
}  // namespace hamgan
