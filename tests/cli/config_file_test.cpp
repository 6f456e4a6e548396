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
  const int rc = test::run_command("python3 " + test::python_script("toml_reference.py") + " " + path, &text);
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
  for (const auto& e : fs::directory_iterator(std::string(HAMGAN_SOURCE_DIR) + "/experiments")) {
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
  EXPECT_GE(files, 5);
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

}  // namespace
}  // namespace hamgan
