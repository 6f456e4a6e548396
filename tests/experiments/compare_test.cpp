// hamgan compare: seed aggregation against the textbook formulas, the report
// files read back (with the interval and significance marks), and an end-to-end run of two tiny configs through the CLI
// (skip of finished runs, resume when more steps are asked for).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "data/image_io.h"
#include "experiments/compare.h"
#include "experiments/compare_report.h"
#include "experiments/run_result.h"
#include "experiments/seed_statistics.h"
#include "tests/common/test_util.h"

namespace fs = std::filesystem;
using namespace hamgan;

namespace {

std::string temp_dir(const std::string& name) { return test::scratch_dir("compare", name); }

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') quoted = !quoted;
      else if (ch == ',' && !quoted) cells.push_back(cell), cell.clear();
      else cell += ch;
    }
    cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST(CompareSummary, MatchesSampleStatistics) {
  const std::vector<double> fids = {30.0, 24.0, 27.0, -1.0 /* not measured: ignored */};
  const SeedSummary s = summarize(fids, /*lower_is_better=*/true);
  EXPECT_EQ(s.n, 3);
  EXPECT_DOUBLE_EQ(s.best, 24.0);
  EXPECT_DOUBLE_EQ(s.mean, 27.0);
  EXPECT_NEAR(s.std, 3.0, 1e-12);  // sqrt(((3)^2 + (-3)^2 + 0) / 2)
  const SeedSummary c = summarize({0.5, 0.9}, /*lower_is_better=*/false);
  EXPECT_DOUBLE_EQ(c.best, 0.9);
  EXPECT_NEAR(c.std, std::sqrt(0.08), 1e-12);
  EXPECT_EQ(summarize({}, true).n, 0);
}

TEST(CompareReport, WritesTableCsvAndPlot) {
  const std::string out = temp_dir("report");
  std::vector<RunResult> runs;
  for (int seed = 0; seed < 2; ++seed) {
    RunResult r;
    r.name = "fmnist_ham", r.seed = seed, r.block = "ham(nmf)", r.g_params = 100, r.d_params = 50;
    r.fid = seed == 0 ? 10.0 : 14.0, r.fid_key = "fid_classifier", r.class_consistency = 0.8 + 0.1 * seed;
    r.steps = 20, r.it_per_s = 3.0;
    r.fid_curve = {{10, 20.0 + seed}, {20, r.fid}};
    runs.push_back(r);
  }
  RunResult none = runs[0];
  none.name = "fmnist_none", none.block = "none", none.fid = 16.0, none.seed = 0;
  none.fid_curve = {{10, 25.0}, {20, 16.0}};
  runs.push_back(none);
  const std::string md = write_compare_report(runs, out);

  const auto csv = read_csv(out + "/results.csv");
  ASSERT_EQ(csv.size(), 4u);  // header + 3 runs
  EXPECT_EQ(csv[0][10], "fid");
  EXPECT_EQ(csv[2][0], "fmnist_ham");
  EXPECT_DOUBLE_EQ(std::stod(csv[2][10]), 14.0);
  EXPECT_EQ(csv[3][2], "none");
  // Per-config summary: best 10, mean 12 ± sample std 2.828.
  EXPECT_NE(md.find("| fmnist_ham | ham(nmf) | 100 | 50 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 10.000 | 12.000 ± 2.828 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| fmnist_none | none |"), std::string::npos) << md;
  EXPECT_EQ(test::file_contents(out + "/results.md"), md);
  const torch::Tensor plot = load_png(out + "/fid_vs_steps.png");
  EXPECT_EQ(plot.size(0), 3);
  EXPECT_GT(plot.size(2), 100);
}

TEST(CompareReport, MarksDifferencesLargerThanTheNoise) {
  const std::string out = temp_dir("marks");
  const std::map<std::string, std::vector<double>> fids = {
      {"good", {10.0, 10.5, 9.8, 10.2}}, {"twin", {10.0, 10.5, 9.8, 10.2}}, {"far", {20.1, 19.7, 20.4, 20.0}},
      {"single", {11.0}}};
  std::vector<RunResult> runs;
  for (const std::string name : {"good", "twin", "far", "single"})
    for (size_t seed = 0; seed < fids.at(name).size(); ++seed) {
      RunResult r;
      r.name = name, r.seed = seed, r.block = "none", r.fid = fids.at(name)[seed], r.fid_key = "fid_classifier";
      runs.push_back(r);
    }
  const std::string md = write_compare_report(runs, out);
  // good and twin: same mean 10.125; the first is the best, the other within the noise.
  EXPECT_NE(md.find("| **10.125** ["), std::string::npos) << md;
  EXPECT_NE(md.find("| ≈ 10.125 ["), std::string::npos) << md;
  EXPECT_NE(md.find("| 20.050 ["), std::string::npos) << md;  // far: clearly worse, no mark
  EXPECT_NE(md.find("| ≈ 11.000 (n=1) |"), std::string::npos) << md;  // one seed: no interval, no test
  EXPECT_NE(md.find("≈ = not distinguishable"), std::string::npos) << md;

  auto line_of = [&](const std::string& start) {
    const size_t at = md.find(start);
    return at == std::string::npos ? std::string() : md.substr(at, md.find('\n', at) - at);
  };
  const std::string far_apart = line_of("- good vs far: −9.925 FID");
  ASSERT_FALSE(far_apart.empty()) << md;
  EXPECT_EQ(far_apart.substr(far_apart.size() - 2), " *") << far_apart;
  EXPECT_NE(far_apart.find("p < 0.001"), std::string::npos) << far_apart;
  const std::string identical = line_of("- good vs twin: 0.000 FID");
  ASSERT_FALSE(identical.empty()) << md;
  EXPECT_EQ(identical.find('*'), std::string::npos) << identical;
  EXPECT_NE(identical.find("p = 1.000"), std::string::npos) << identical;
  EXPECT_NE(line_of("- good vs single: −0.875 FID").find("not tested"), std::string::npos) << md;

  // results.csv: the interval bounds of each run's config; empty for one seed.
  const auto csv = read_csv(out + "/results.csv");
  ASSERT_EQ(csv[0].size(), 17u);
  EXPECT_EQ(csv[0][13], "fid_ci95_low");
  const MeanInterval good = mean_confidence_interval(fids.at("good"));
  EXPECT_NEAR(std::stod(csv[1][13]), good.lower, 1e-8);
  EXPECT_NEAR(std::stod(csv[1][14]), good.upper, 1e-8);
  EXPECT_EQ(csv[1][15], "best");
  EXPECT_EQ(csv[5][15], "within_noise");  // twin
  EXPECT_EQ(csv[9][15], "worse");         // far
  EXPECT_EQ(csv.back()[13], "");          // single
  const auto pairs = read_csv(out + "/results_pairwise.csv");
  ASSERT_EQ(pairs.size(), 7u);  // header + 4·3/2 pairs
  EXPECT_EQ(pairs[2][0] + "," + pairs[2][1] + "," + pairs[2][7], "good,far,1");
}

TEST(CompareEndToEnd, RunsSkipsAndResumes) {
  const char* bin = std::getenv("HAMGAN_BIN");
  if (!bin) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  const std::string dir = temp_dir("e2e");
  for (const std::string block : {"none", "ham"}) {
    std::ofstream f(dir + "/tiny_" + block + ".toml");
    f << "resolution = 32\nimage_channels = 1\nnum_classes = 10\nz_dim = 16\ng_ch = 4\nd_ch = 4\n"
      << "g_block = \"" << block << "\"\nd_block = \"" << block << "\"\n"
      << "batch_size = 4\nsteps = 2\nlog_every = 1\nsample_every = 0\ncheckpoint_every = 0\nthreads = 1\n";
  }
  const std::string out = dir + "/results";
  const std::string base = std::string(bin) + " compare --configs " + dir + "/tiny_none.toml " + dir +
                           "/tiny_ham.toml --eval_every 0 --module_batch 2 --out " + out;
  ASSERT_EQ(std::system((base + " > " + dir + "/first.txt 2>&1").c_str()), 0) << test::file_contents(dir + "/first.txt");
  const auto csv = read_csv(out + "/results.csv");
  ASSERT_EQ(csv.size(), 3u) << test::file_contents(out + "/results.csv");
  EXPECT_EQ(csv[1][8], "2");  // steps of the config
  EXPECT_TRUE(fs::exists(out + "/samples_tiny_ham.png"));
  EXPECT_GT(std::stod(csv[2][7]), 10.0);  // peak RSS of a LibTorch process: well above 10 MB

  ASSERT_EQ(std::system((base + " > " + dir + "/second.txt 2>&1").c_str()), 0);
  EXPECT_NE(test::file_contents(dir + "/second.txt").find("finished, skipped"), std::string::npos) << test::file_contents(dir + "/second.txt");

  ASSERT_EQ(std::system((base + " --steps 3 > " + dir + "/third.txt 2>&1").c_str()), 0) << test::file_contents(dir + "/third.txt");
  EXPECT_NE(test::file_contents(dir + "/third.txt").find("(resuming)"), std::string::npos);
  EXPECT_EQ(read_csv(out + "/results.csv")[1][8], "3");
}
