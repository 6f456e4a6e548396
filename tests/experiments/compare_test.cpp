// hamgan compare: seed aggregation against the textbook formulas, the report
// files read back, and an end-to-end run of two tiny configs through the CLI
// (skip of finished runs, resume when more steps are asked for).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/image_io.h"
#include "experiments/compare.h"
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
