// `--latents F.npz` on the generator side of `hamgan fid` and `fid-stats`: the
// same z and labels as a seed draws give that seed's statistics exactly, stamped
// apart; every malformed file is one line naming it.
#include <gtest/gtest.h>

#include <cmath>

#include "gan/sample/label_draw.h"
#include "gan/sample/noise.h"
#include "metrics/npz.h"
#include "metrics/stats.h"
#include "tests/import/import_fixture.h"

namespace hamgan {
namespace {

constexpr int64_t kN = 20, kZDim = 8, kClasses = 10;
constexpr uint64_t kSeed = 5;

class Latents : public test::ImportFixture {
 protected:
  // The z and labels `hamgan fid` draws for seed kSeed (FixedNoise), as `hamgan sample --float` writes them.
  static std::string seed_file(const std::string& name, const LabelDraw* labels = nullptr) {
    const FixedNoise noise(kN, kZDim, kClasses, kSeed, 0.0, 0, labels);
    const std::string path = dir_ + "/" + name + ".npz";
    write_npz(path, {{"z", noise.z()}, {"y", noise.labels()}}, /*compressed=*/false);
    return path;
  }
  static FeatureStats stats(const std::string& args, const std::string& name) {
    std::string out;
    const std::string path = dir_ + "/" + name + ".npz";
    EXPECT_EQ(run("fid-stats " + dir_ + "/run --out " + path + " --seed 5" + features() + args, &out), 0) << out;
    return load_stats(path);
  }
  // The error line of a command that must fail.
  static std::string refused(const std::string& args) {
    std::string out;
    EXPECT_EQ(run(args, &out), 1) << out;
    const std::string line = test::last_error_line(out);
    EXPECT_FALSE(line.empty()) << out;
    return line;
  }
};

TEST_F(Latents, StatisticsEqualTheSeedsAndAreStampedFile) {
  const std::string file = seed_file("balanced");
  const FeatureStats drawn = stats(" --n 20", "drawn");
  const FeatureStats read = stats(" --latents " + file, "read");  // --n left out: every row of the file
  EXPECT_EQ(read.n, kN);
  EXPECT_TRUE(torch::equal(read.mu, drawn.mu));
  EXPECT_TRUE(torch::equal(read.sigma, drawn.sigma));
  EXPECT_EQ(drawn.protocol.labels, "balanced");
  EXPECT_EQ(read.protocol.labels, "file");
  EXPECT_NE(read.protocol.source.find("z and labels from " + file), std::string::npos) << read.protocol.source;
  // Other z in the file, other statistics: the file is what is scored, not the seed.
  const NpzArrays seed_inputs = read_npz(file);
  write_npz(dir_ + "/negated.npz", {{"z", -seed_inputs.at("z")}, {"y", seed_inputs.at("y")}}, false);
  const FeatureStats negated = stats(" --latents " + dir_ + "/negated.npz", "negated");
  EXPECT_FALSE(torch::equal(negated.mu, drawn.mu));
}

// The file `hamgan sample --float` writes (x, y and z) is read as it is.
TEST_F(Latents, SampleFloatFileFeedsLatents) {
  std::string out;
  ASSERT_EQ(run("sample --checkpoint " + dir_ + "/run --n 20 --seed 5 --float --device cpu --quiet --out " + dir_ +
                    "/sampled.npz", &out), 0) << out;
  const FeatureStats drawn = stats(" --n 20", "drawn_for_sample");
  const FeatureStats read = stats(" --latents " + dir_ + "/sampled.npz", "read_sample");
  EXPECT_TRUE(torch::equal(read.mu, drawn.mu));
  EXPECT_TRUE(torch::equal(read.sigma, drawn.sigma));
}

// Random labels in the file: the same as --labels random draws for the seed.
TEST_F(Latents, RandomLabelsFromTheFileEqualTheDrawnOnes) {
  const LabelDraw random{LabelMode::random, {}, ""};
  const std::string file = seed_file("random", &random);
  const FeatureStats drawn = stats(" --n 20 --labels random", "drawn_random");
  const FeatureStats read = stats(" --n 20 --latents " + file, "read_random");  // an explicit --n that agrees
  EXPECT_TRUE(torch::equal(read.mu, drawn.mu));
  EXPECT_TRUE(torch::equal(read.sigma, drawn.sigma));
}

TEST_F(Latents, FidEqualsTheSeeds) {
  const std::string file = seed_file("fid");
  std::string drawn, read;
  ASSERT_EQ(run("fid " + dir_ + "/run " + dir_ + "/data --n 20 --seed 5" + features(), &drawn), 0) << drawn;
  ASSERT_EQ(run("fid " + dir_ + "/run " + dir_ + "/data --latents " + file + " --seed 5" + features() + " --n 20", &read), 0)
      << read;
  ASSERT_TRUE(std::isfinite(test::fid_in(read))) << read;
  EXPECT_EQ(test::fid_in(read), test::fid_in(drawn)) << drawn << read;
  EXPECT_NE(read.find("labels file"), std::string::npos) << read;
}

TEST_F(Latents, MalformedFilesAreOneLine) {
  const std::string stats_cmd = "fid-stats " + dir_ + "/run --out " + dir_ + "/bad.npz" + features() + " --latents ";
  const torch::Tensor z = torch::randn({kN, kZDim}), y = torch::arange(kN, torch::kInt64).remainder(kClasses);
  write_npz(dir_ + "/wide.npz", {{"z", torch::randn({kN, 9})}, {"y", y}}, false);
  EXPECT_NE(refused(stats_cmd + dir_ + "/wide.npz").find("z has 9 columns but the generator takes z_dim = 8"),
            std::string::npos);
  torch::Tensor high = y.clone();
  high[3] = kClasses;
  write_npz(dir_ + "/high.npz", {{"z", z}, {"y", high}}, false);
  EXPECT_NE(refused(stats_cmd + dir_ + "/high.npz").find("y[3] = 10 is out of range; the generator has classes 0..9"),
            std::string::npos);
  write_npz(dir_ + "/double.npz", {{"z", z.to(torch::kDouble)}, {"y", y}}, false);
  EXPECT_NE(refused(stats_cmd + dir_ + "/double.npz").find("z is Double with 2 dimension(s); expected float32 (N, 8)"),
            std::string::npos);
  write_npz(dir_ + "/no_y.npz", {{"z", z}}, false);
  EXPECT_NE(refused(stats_cmd + dir_ + "/no_y.npz").find("no_y.npz: no member 'y'"), std::string::npos);
  write_npz(dir_ + "/short.npz", {{"z", z}, {"y", y.slice(0, 0, 5)}}, false);
  EXPECT_NE(refused(stats_cmd + dir_ + "/short.npz").find("z has 20 rows but y has 5"), std::string::npos);
  const std::string good = seed_file("good");
  EXPECT_NE(refused(stats_cmd + good + " --n 12").find("holds 20 rows but 12 images"), std::string::npos);
  EXPECT_NE(refused(stats_cmd + good + " --labels random").find("gives the classes; drop --labels random"),
            std::string::npos);
  EXPECT_NE(refused("fid " + dir_ + "/data " + dir_ + "/data --latents " + good + features())
                .find("neither " + dir_ + "/data nor " + dir_ + "/data is a generator checkpoint"),
            std::string::npos);
  EXPECT_NE(refused(stats_cmd + dir_ + "/absent.npz").find("absent.npz: no such file"), std::string::npos);
}

}  // namespace
}  // namespace hamgan
