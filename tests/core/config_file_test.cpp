// core/config_file.h against Python's tomllib on every shipped experiment and
// on TOML the hand-written reader got wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/config_file.h"
#include "core/errors.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

std::map<std::string, std::string> ours(const std::string& path) {
  std::map<std::string, std::string> out;
  for (const auto& e : read_config_file(path)) {
    std::string joined;
    for (size_t i = 0; i < e.values.size(); ++i) joined += (i ? "\x1f" : "") + e.values[i];
    out[e.key] = joined;
  }
  return out;
}

std::map<std::string, std::string> tomllib(const std::string& path) {
  std::string text;
  const int rc = test::run_command(HAMGAN_PYTHON " " + test::python_script("toml_reference.py") + " " + path, &text);
  EXPECT_EQ(rc, 0) << text;
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto tab = line.find('\t');
    out[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return out;
}

TEST(ConfigFile, EveryShippedExperimentReadsAsTomllibReadsIt) {
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(std::string(HAMGAN_SOURCE_DIR) + "/experiments")) {
    if (e.path().extension() != ".toml") continue;
    ++files;
    const auto a = ours(e.path().string()), b = tomllib(e.path().string());
    EXPECT_GT(a.size(), 3u) << e.path();
    for (const auto& [k, v] : b) {
      ASSERT_TRUE(a.count(k)) << e.path() << ": " << k;
      if (v.find('.') != std::string::npos && v.find_first_not_of("0123456789.e-+") == std::string::npos)
        EXPECT_DOUBLE_EQ(std::stod(a.at(k)), std::stod(v)) << e.path() << ": " << k;
      else
        EXPECT_EQ(a.at(k), v) << e.path() << ": " << k;
    }
    EXPECT_EQ(a.size(), b.size()) << e.path();
  }
  EXPECT_GE(files, 19);  // experiments/*.toml and experiments/ablation/*.toml
}

TEST(ConfigFile, TomlFeaturesReadAsTomllibReadsThem) {
  const std::string path = test::scratch_dir("cli", "features") + "/f.toml";
  std::ofstream(path) << "a = 'literal \\ string'\nb = 1_000\nc = 1e9\nd = \"x\" # comment\ne = 2.5e-4\n"
                      << "f = [1, 2, 3]\ng = true\nh = -0.0\n";
  const auto a = ours(path), b = tomllib(path);
  for (const char* k : {"a", "b", "c", "d", "f", "g"}) EXPECT_EQ(a.at(k), b.at(k)) << k;
  EXPECT_DOUBLE_EQ(std::stod(a.at("e")), 2.5e-4);
}

TEST(ConfigFile, ErrorsNameTheSourceLineAndColumn) {
  for (const std::string bad : {"x = [1, 2\n", "x = 1\nx = 2\n", "= 3\n", "x = 'open\n", "x = [[1], [2]]\n",
                                "x = 1979-05-27\n"}) {
    try {
      parse_config_text(bad, "exp.toml");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const ConfigError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("exp.toml:", 0), 0u) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
}

TEST(ConfigFile, ADuplicateKeyIsNamedWithTheFix) {
  try {
    parse_config_text("seed = 1\nseed = 2\n", "exp.toml");
    ADD_FAILURE() << "accepted a duplicate key";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "exp.toml:2:8: 'seed' is set twice; keep one of the two");
  }
}

// Any bytes give entries or a ConfigError: never another exception, never a crash.
TEST(ConfigFile, ArbitraryBytesGiveEntriesOrAConfigError) {
  std::vector<std::string> inputs = {std::string(100000, '['), "a = " + std::string(100000, '['),
                                     "a = " + std::string(5000, '{'), std::string(3, '\0'),
                                     "a" + std::string(200000, '.') + "b = 1", "x = \"\\u0000\"\n"};
  std::string deep = "k";
  for (int i = 0; i < 20000; ++i) deep += ".k";
  inputs.push_back(deep + " = 1\n");
  const std::string shipped = test::file_contents(std::string(HAMGAN_SOURCE_DIR) + "/experiments/fmnist_ham.toml");
  ASSERT_FALSE(shipped.empty());
  uint64_t state = 12345;
  auto next = [&state] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; };
  for (int i = 0; i < 3000; ++i) {  // a shipped config with 1-8 bytes changed, cut or not
    std::string text = shipped;
    for (int j = 0, n = 1 + next() % 8; j < n; ++j) text[next() % text.size()] = static_cast<char>(next() & 0xff);
    if (i % 3 == 0) text.resize(next() % text.size());
    inputs.push_back(text);
  }
  for (int i = 0; i < 500; ++i) {  // random bytes
    std::string text(next() % 200, '\0');
    for (char& c : text) c = static_cast<char>(next() & 0xff);
    inputs.push_back(text);
  }
  int rejected = 0;
  for (const auto& text : inputs) {
    try {
      parse_config_text(text, "f.toml");
    } catch (const ConfigError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("f.toml:", 0), 0u) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a ConfigError: " << e.what();
    }
  }
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace hamgan
