// `hamgan fid --intra_class --prdc --bootstrap` through the binary ($HAMGAN_BIN)
// on two small folders with class sub-folders and an untrained classifier as
// the feature extractor: each class's FID equals `hamgan fid` on that class's
// folders alone, and inputs that cannot serve a metric are refused in one line.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <regex>

#include "data/image_io.h"
#include "metrics/classifier.h"
#include "metrics/stats.h"
#include "tests/metrics/helpers.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

class FidSampleMetricsCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!test::hamgan_bin()) return;
    dir_ = test::temp_dir("fid_sample_metrics");
    torch::manual_seed(0);
    // 3 classes × 20 images a side: noisy flat images whose brightness is drawn from
    // [40·k, 40·k + 100) for class k, 15 brighter on B; the brightness spread
    // gives the features their spread.
    for (const char* side : {"a", "b"})
      for (int k = 0; k < 3; ++k) {
        const std::string cls = dir_ + "/" + side + "/c" + std::to_string(k);
        fs::create_directories(cls);
        const double base = 40.0 * k + (side[0] == 'b' ? 15.0 : 0.0);
        for (int i = 0; i < 20; ++i) {
          const auto image = torch::rand({1}) * 100.0 + base + torch::randn({1, 32, 32}) * 20.0;
          save_png(image.clamp(0, 255).to(torch::kUInt8), cls + "/" + std::to_string(i) + ".png");
        }
      }
    ClassifierConfig cc;  // for these folders' images: RGB as read, 3 classes
    cc.channels = 3;
    cc.num_classes = 3;
    cc.width = 8;
    cc.feature_dim = 16;
    FeatureClassifier net(cc);
    save_classifier(dir_ + "/cls.pt", net);
  }
  void SetUp() override {
    if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  }
  static int run(const std::string& args, std::string* out) {
    return test::run_command(std::string(test::hamgan_bin()) + " " + args, out);
  }
  static std::string common() { return " --features classifier:" + dir_ + "/cls.pt --n 0 --batch 32 --device cpu"; }
  static inline std::string dir_;
};

double number_after(const std::string& out, const std::string& label) {
  std::smatch m;
  return std::regex_search(out, m, std::regex(label + "([-+0-9.eE]+)")) ? std::stod(m[1].str()) : NAN;
}

TEST_F(FidSampleMetricsCli, IntraClassFidIsEachClassesFid) {
  std::string out;
  ASSERT_EQ(run("fid " + dir_ + "/a " + dir_ + "/b" + common() + " --intra_class", &out), 0) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("intra-class FID: mean ([-+0-9.eE]+) over 3 classes; worst: (.*)\n")))
      << out;
  const double mean = std::stod(m[1].str());
  const std::string worst = m[2].str();
  double sum = 0, previous = INFINITY;
  for (int k = 0; k < 3; ++k) {
    std::string alone;
    ASSERT_EQ(run("fid " + dir_ + "/a/c" + std::to_string(k) + " " + dir_ + "/b/c" + std::to_string(k) + common(), &alone), 0)
        << alone;
    const double expected = number_after(alone, "FID: ");
    const double listed = number_after(worst, "class " + std::to_string(k) + " ");
    EXPECT_NEAR(listed, expected, 1e-6 * expected) << "class " << k << "\n" << out;
    sum += expected;
  }
  EXPECT_NEAR(mean, sum / 3, 1e-6 * mean) << out;
  // Worst first.
  const std::regex pair("class \\d+ ([-+0-9.eE]+)");
  for (auto it = std::sregex_iterator(worst.begin(), worst.end(), pair);
       it != std::sregex_iterator(); ++it) {
    EXPECT_LE(std::stod((*it)[1].str()), previous) << worst;
    previous = std::stod((*it)[1].str());
  }
  // The same images on both sides: every class at 0 (to rounding; an untrained
  // classifier's features are small, so relative to the A-vs-B value).
  ASSERT_EQ(run("fid " + dir_ + "/a " + dir_ + "/a" + common() + " --intra_class --intra_class_worst 1", &out), 0) << out;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("intra-class FID: mean ([-+0-9.eE]+) over 3 classes; worst: class \\d+ [-+0-9.eE]+\n")))
      << out;
  EXPECT_LE(std::fabs(std::stod(m[1].str())), 1e-6 * mean) << out;
}

TEST_F(FidSampleMetricsCli, PrdcAndBootstrapLines) {
  std::string out, again;
  const std::string cmd = "fid " + dir_ + "/a " + dir_ + "/b" + common() + " --prdc --bootstrap 30 --bootstrap_seed 4";
  ASSERT_EQ(run(cmd, &out), 0) << out;
  for (const char* name : {"precision: ", "recall: ", "coverage: "}) {
    const double v = number_after(out, name);
    EXPECT_GE(v, 0.0) << name << out;
    EXPECT_LE(v, 1.0) << name << out;
  }
  EXPECT_GE(number_after(out, "density: "), 0.0) << out;
  EXPECT_NE(out.find("(k=3, A generated, B real)"), std::string::npos) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      out, m, std::regex("FID 95% interval \\(bootstrap 30, resampling A, seed 4\\): \\[([-+0-9.eE]+), ([-+0-9.eE]+)\\], std ")))
      << out;
  EXPECT_LE(std::stod(m[1].str()), std::stod(m[2].str())) << out;
  const std::string interval = m[0].str();
  ASSERT_EQ(run(cmd, &again), 0) << again;
  EXPECT_NE(again.find(interval), std::string::npos) << "not deterministic:\n" << out << "\n" << again;
}

TEST_F(FidSampleMetricsCli, InputsWithoutWhatAMetricNeedsAreRefusedInOneLine) {
  torch::manual_seed(1);
  const auto x = torch::randn({50, 16}, torch::kDouble);
  save_stats(dir_ + "/s.npz", {x.mean(0), torch::cov(x.t()), 50}, false);
  struct Case {
    std::string args, names, fix;
  };
  const Case cases[] = {
      {"fid " + dir_ + "/a/c0 " + dir_ + "/b --intra_class", dir_ + "/a/c0 has none", "class sub-folders"},
      {"fid " + dir_ + "/a " + dir_ + "/s.npz --intra_class", dir_ + "/s.npz is a statistics file", "class sub-folders"},
      {"fid " + dir_ + "/s.npz " + dir_ + "/a --prdc", dir_ + "/s.npz is a statistics file", "pass the images"},
      {"fid " + dir_ + "/s.npz " + dir_ + "/s.npz --bootstrap 10", "both statistics files", "generated images"},
  };
  for (const auto& c : cases) {
    std::string out;  // stderr alone
    EXPECT_EQ(test::run_command("{ " + std::string(test::hamgan_bin()) + " " + c.args + common() + " 2>&1 >/dev/null; }", &out), 1)
        << c.args << "\n" << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    EXPECT_EQ(out.rfind("hamgan: error: ", 0), 0u) << out;
    EXPECT_NE(out.find(c.names), std::string::npos) << out;
    EXPECT_NE(out.find(c.fix), std::string::npos) << out;
  }
  // A statistics file on the real side is fine for the bootstrap: the images are resampled.
  std::string out;
  ASSERT_EQ(run("fid " + dir_ + "/s.npz " + dir_ + "/a --bootstrap 5 --allow_protocol_mismatch" + common(), &out), 0)
      << out;
  EXPECT_NE(out.find("(bootstrap 5, resampling B, seed 0)"), std::string::npos) << out;
}

}  // namespace
}  // namespace hamgan
