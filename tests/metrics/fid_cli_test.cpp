// `hamgan fid` / `hamgan fid-stats` end to end through the binary ($HAMGAN_BIN).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "data/dataset.h"
#include "metrics/classifier.h"
#include "metrics/npz.h"
#include "metrics/stats.h"
#include "tests/metrics/helpers.h"

using namespace hamgan;

namespace {

using test::run_cli;

// The number after "FID: ", and how many significant digits were printed.
double parse_fid(const std::string& out, int* digits = nullptr) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("FID: ([-+0-9.eE]+)"))) return NAN;
  if (digits) {
    std::string mant = std::regex_replace(m[1].str(), std::regex("[eE].*"), "");
    mant = std::regex_replace(mant, std::regex("[^0-9]"), "");
    *digits = int(mant.size() - std::min(mant.find_first_not_of('0'), mant.size()));
  }
  return std::stod(m[1].str());
}

}  // namespace

TEST(FidCli, StatsFilesGivePytorchFidValue) {
  NEED_BIN();
  auto dir = test::temp_dir("cli_stats");
  std::string ref;
  CACHED_REFERENCE("frechet_reference.py", "frechet", ref);
  auto c = read_npz(ref + "/case_large.npz");
  // Our writer (stored) on one side, numpy's savez_compressed layout on the other is covered by
  // the npz tests; here both sides are ours, one of each compression.
  save_stats(dir + "/a.npz", {c["mu1"], c["sigma1"], 1200}, true);
  save_stats(dir + "/b.npz", {c["mu2"], c["sigma2"], 1100}, false);
  auto r = run_cli("fid " + dir + "/a.npz " + dir + "/b.npz", dir, "env -u HAMGAN_INCEPTION");
  ASSERT_EQ(r.rc, 0) << r.err;
  int digits = 0;
  double fid = parse_fid(r.out, &digits);
  double expected = c["fid_pytorch_fid"].item<double>();
  EXPECT_LE(std::fabs(fid - expected) / expected, 1e-6) << r.out;
  EXPECT_GE(digits, 8) << r.out;
  // 1200 and 1100 samples of 256-d features: full-rank covariances, no warning (it once fired below 2048 whatever the dimension).
  EXPECT_EQ(r.err.find("rank-deficient"), std::string::npos) << r.err;
}

TEST(FidCli, MissingInceptionWeightsIsOneLine) {
  NEED_BIN();
  auto dir = test::temp_dir("cli_noweights");
  auto r = run_cli("fid-stats " + dir + " --out " + dir + "/s.npz", dir, "env -u HAMGAN_INCEPTION");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("hamgan: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("HAMGAN_INCEPTION"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/s.npz"));
}

TEST(FidCli, ClassifierFeaturesOnFashionMnist) {
  NEED_BIN();
  if (!std::filesystem::exists(std::string(kDefaultFashionMnistDir)))
    GTEST_SKIP() << "Fashion-MNIST not installed";
  auto dir = test::temp_dir("cli_classifier");
  ClassifierConfig cc;
  cc.width = 8;
  cc.feature_dim = 32;
  torch::manual_seed(0);  // the same untrained network on every run
  FeatureClassifier net(cc);
  save_classifier(dir + "/cls.pt", net);
  const std::string data = std::string(kDefaultFashionMnistDir);
  std::string common = " --features classifier:" + dir + "/cls.pt --n 300 --batch 64";
  auto r = run_cli("fid-stats " + data + common + " --split test --out " + dir + "/test.npz", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  auto s = read_npz(dir + "/test.npz");
  EXPECT_EQ(s["mu"].sizes(), (std::vector<int64_t>{32}));
  EXPECT_EQ(s["sigma"].sizes(), (std::vector<int64_t>{32, 32}));
  EXPECT_EQ(s["sigma"].scalar_type(), torch::kFloat64);
  EXPECT_EQ(s["n"].item<int64_t>(), 300);
  // Same images through the statistics file and through the data set: FID 0.
  r = run_cli("fid " + dir + "/test.npz " + data + common + " --split test", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  // The covariance is singular (ReLU features that stay 0), where a matrix square root is only
  // good to about sqrt(machine epsilon) relative: 1e-6 of the trace, the bound the scipy comparison holds to.
  EXPECT_NEAR(parse_fid(r.out), 0.0, 1e-6 * s["sigma"].trace().item<double>()) << r.out;
  // Test split statistics vs train-split images: a real, positive distance.
  r = run_cli("fid " + dir + "/test.npz " + data + common + " --split train", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_GT(parse_fid(r.out), 1e-4 * s["sigma"].trace().item<double>()) << r.out;
  // IS and KID on request (both inputs images).
  r = run_cli("fid " + data + " " + data + common + " --is --is_splits 2 --kid --kid_subsets 5 --kid_subset_size 100", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("IS A: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("KID: "), std::string::npos) << r.out;
}

TEST(FidCli, ABadSecondInputFailsBeforeTheFirstInputsFeatures) {
  NEED_BIN();
  if (!std::filesystem::exists(std::string(kDefaultFashionMnistDir)))
    GTEST_SKIP() << "Fashion-MNIST not installed";
  auto dir = test::temp_dir("cli_bad_b");
  ClassifierConfig cc;
  cc.width = 8;
  cc.feature_dim = 32;
  FeatureClassifier net(cc);
  save_classifier(dir + "/cls.pt", net);
  const std::string common = " --features classifier:" + dir + "/cls.pt --n 300 --batch 64";
  auto r = run_cli("fid " + std::string(kDefaultFashionMnistDir) + " " + dir + "/missing" + common, dir);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find(dir + "/missing"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("A: "), std::string::npos) << r.out;  // A's features were never computed
  EXPECT_EQ(r.err.find("A features"), std::string::npos) << r.err;
}

TEST(FidCli, TheFewSamplesWarningFollowsTheFeatureDimension) {
  NEED_BIN();
  auto dir = test::temp_dir("cli_few_warning");
  torch::manual_seed(0);
  const auto x = torch::randn({500, 32}, torch::kDouble), y = torch::randn({500, 32}, torch::kDouble);
  save_stats(dir + "/a.npz", {x.mean(0), torch::cov(x.t()), 500}, false);
  save_stats(dir + "/b.npz", {y.mean(0), torch::cov(y.t()), 20}, false);
  auto r = run_cli("fid " + dir + "/a.npz " + dir + "/b.npz", dir, "env -u HAMGAN_INCEPTION");
  ASSERT_EQ(r.rc, 0) << r.err;
  // 500 samples of 32-d features are plenty; 20 are fewer than the dimensions.
  EXPECT_EQ(r.err.find(dir + "/a.npz has"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir + "/b.npz has 20 samples for 32-d features"), std::string::npos) << r.err;
}

// Two flat folders of PNGs, the way pytorch-fid, clean-fid and torch-fidelity
// take them: the same FID as pytorch-fid's own command line on the same random
// Inception weights (its preprocessing: --resize legacy_pytorch; --size 40
// leaves the 40x40 images as they are).
TEST(FidCli, FlatFoldersMatchPytorchFidsCommandLine) {
  NEED_BIN();
  std::string weights;
  CACHED_REFERENCE("inception_reference.py", "inception", weights);
  auto dir = test::temp_dir("cli_flat_folders");
  RUN_REFERENCE("fid_folders_reference.py", weights + "/weights.pth " + dir);
  const double expected = std::stod(test::file_contents(dir + "/fid.txt"));
  auto r = run_cli("fid " + dir + "/a " + dir + "/b --features inception:" + weights +
                       "/weights.pth --resize legacy_pytorch --size 40 --n 0 --batch 16 --device cpu",
                   dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const double fid = parse_fid(r.out);
  RecordProperty("fid", std::to_string(fid));
  RecordProperty("pytorch_fid", std::to_string(expected));
  // 16 images in 2048 dimensions: both covariances are singular, where a matrix
  // square root is good to about sqrt(machine epsilon) of the trace.
  EXPECT_NEAR(fid, expected, 1e-5 * expected) << r.out;
  // fid-stats takes the same folder.
  r = run_cli("fid-stats " + dir + "/a --features inception:" + weights +
                  "/weights.pth --resize legacy_pytorch --size 40 --n 0 --device cpu --out " + dir + "/a.npz",
              dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(read_npz(dir + "/a.npz")["n"].item<int64_t>(), 16);
}

// Statistics carry their protocol: the weights' SHA-256 (checked against
// Python's hashlib), preprocessing, image size, sample count and source; fid
// refuses statistics of different protocols in one line naming the field,
// unless told otherwise; statistics from other tools are accepted with a note.
TEST(FidCli, StatisticsAreProtocolStampedAndMismatchesRefused) {
  NEED_BIN();
  if (!std::filesystem::exists(std::string(kDefaultFashionMnistDir))) GTEST_SKIP() << "Fashion-MNIST not installed";
  auto dir = test::temp_dir("cli_protocol");
  ClassifierConfig cc;
  cc.width = 8;
  cc.feature_dim = 32;
  torch::manual_seed(0);
  FeatureClassifier net(cc);
  save_classifier(dir + "/cls.pt", net);
  const std::string data = std::string(kDefaultFashionMnistDir);
  const std::string common = " --features classifier:" + dir + "/cls.pt --n 300 --split test";
  auto r = run_cli("fid-stats " + data + common + " --out " + dir + "/s32.npz", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("fid-stats " + data + common + " --size 28 --out " + dir + "/s28.npz", dir);
  ASSERT_EQ(r.rc, 0) << r.err;

  // The stamp, read back by numpy, against hashlib's digest of the weights file.
  std::string py;
  ASSERT_EQ(test::run_command(HAMGAN_PYTHON " -c \"import json, hashlib, numpy as np; p = json.loads(np.load('" + dir +
                                  "/s32.npz')['protocol'].tobytes()); print(p['weights_sha256'] == hashlib.sha256("
                                  "open('" + dir + "/cls.pt', 'rb').read()).hexdigest(), p['extractor'], "
                                  "p['image_size'], p['n'], p['feature_dim'], len(p['source_sha256']))\"",
                              &py),
            0)
      << py;
  EXPECT_EQ(py, "True classifier 32 300 32 64\n");

  // Same protocol: compared, and the result names it.
  r = run_cli("fid " + dir + "/s32.npz " + data + common, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("protocol: classifier sha256 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("classifier input, 32 px images, fp32, TF32 off, deterministic cuDNN, 300 vs 300 samples"),
            std::string::npos)
      << r.out;

  // Another image size: one line naming the field, before any features are computed.
  r = run_cli("fid " + dir + "/s32.npz " + dir + "/s28.npz", dir);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("image_size differs (32 vs 28)"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("FID: "), std::string::npos) << r.out;
  r = run_cli("fid " + dir + "/s28.npz " + data + common, dir);  // statistics against images of the other size
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.err.find("image_size differs (28 vs 32)"), std::string::npos) << r.err;
  r = run_cli("fid " + dir + "/s32.npz " + dir + "/s28.npz --allow_protocol_mismatch", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("warning: different protocols (image_size differs (32 vs 28))"), std::string::npos) << r.out;
  EXPECT_GT(parse_fid(r.out), 0.0) << r.out;

  // Statistics another tool wrote (mu and sigma only): accepted, with a note.
  FeatureStats plain = load_stats(dir + "/s32.npz");
  plain.protocol = StatsProtocol{};
  save_stats(dir + "/plain.npz", plain, false);
  r = run_cli("fid " + dir + "/plain.npz " + dir + "/s28.npz", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("plain.npz carries no protocol stamp"), std::string::npos) << r.out;

  // A damaged stamp is one line, not a crash.
  NpzArrays arrays = read_npz(dir + "/s32.npz");
  arrays["protocol"] = torch::tensor({'{', 'x'}, torch::kUInt8);
  write_npz(dir + "/bad.npz", arrays, false);
  r = run_cli("fid " + dir + "/bad.npz " + dir + "/s32.npz", dir);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("bad.npz: the `protocol` member is not a HamGAN protocol stamp"), std::string::npos) << r.err;
}
