// The CLI on bad input: one "hamgan: error:" line naming the file, exit 1;
// data-info's grid laid out a row per class.
#include <zlib.h>

#include <fstream>

#include "data/image_io.h"
#include "data_test_util.h"

namespace hamgan {
namespace {

void expect_one_line_error(const test::CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.err.rfind("hamgan: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

TEST(DataCli, BadInputsGiveOneLineAndExitOne) {
  if (!std::getenv("HAMGAN_BIN")) GTEST_SKIP() << "HAMGAN_BIN unset";
  const auto dir = test::fresh_dir("cli_bad");
  expect_one_line_error(test::run_cli("prepare --input " + dir + "/nope --output " + dir + "/o.hdf5", dir),
                        dir + "/nope");
  std::ofstream(dir + "/x.hdf5") << "junk";
  expect_one_line_error(test::run_cli("data-info " + dir + "/x.hdf5", dir), dir + "/x.hdf5");
  std::filesystem::create_directories(dir + "/idx");
  std::ofstream(dir + "/idx/train-images-idx3-ubyte.gz") << "not gzip, not idx";
  std::ofstream(dir + "/idx/train-labels-idx1-ubyte.gz") << "";
  expect_one_line_error(test::run_cli("data-info " + dir + "/idx --grid ''", dir), "train-images-idx3-ubyte.gz");
  // Config files: unknown key, malformed line, missing file.
  std::ofstream(dir + "/bad_key.toml") << "output = \"" + dir + "/o.hdf5\"\nsizee = 64\n";
  auto r = test::run_cli("prepare --config " + dir + "/bad_key.toml", dir);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("sizee"), std::string::npos) << r.err;
  std::ofstream(dir + "/malformed.toml") << "size = [1, 2\n";
  EXPECT_NE(test::run_cli("prepare --output " + dir + "/o.hdf5 --config " + dir + "/malformed.toml", dir).status, 0);
  r = test::run_cli("prepare --output " + dir + "/o.hdf5 --config " + dir + "/none.toml", dir);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("none.toml"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/o.hdf5"));
}

TEST(DataCli, DataInfoGridHasARowPerClass) {
  if (!std::getenv("HAMGAN_BIN")) GTEST_SKIP() << "HAMGAN_BIN unset";
  const auto dir = test::fresh_dir("cli_info");
  // Three images of labels 2, 0, 2 (class 1 empty) as IDX.
  auto imgs = torch::randint(1, 256, {3, 28, 28}, torch::kUInt8);
  auto write = [](const std::string& p, std::string head, const torch::Tensor& t) {
    head.append(static_cast<const char*>(t.data_ptr()), t.nbytes());
    gzFile f = gzopen(p.c_str(), "wb");
    gzwrite(f, head.data(), unsigned(head.size()));
    gzclose(f);
  };
  write(dir + "/train-images-idx3-ubyte.gz", std::string{0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 28, 0, 0, 0, 28}, imgs);
  write(dir + "/train-labels-idx1-ubyte.gz", std::string{0, 0, 8, 1, 0, 0, 0, 3},
        torch::tensor({2, 0, 2}, torch::kUInt8));
  auto r = test::run_cli("data-info " + dir + " --grid " + dir + "/g.png --per_class 4", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto g = load_png(dir + "/g.png");
  // 3 rows (classes 0..2) × 4 columns of 32×32 with 2-pixel padding.
  ASSERT_EQ(g.sizes(), (std::vector<int64_t>{1, 3 * 34 + 2, 4 * 34 + 2}));
  auto cell = [&](int64_t row, int64_t col) { return g[0].narrow(0, 2 + row * 34 + 2, 28).narrow(0, 0, 28).narrow(1, 2 + col * 34 + 2, 28); };
  EXPECT_TRUE(torch::equal(cell(0, 0), imgs[1]));  // class 0: example 1
  EXPECT_TRUE(torch::equal(cell(2, 0), imgs[0]));  // class 2: examples 0 and 2
  EXPECT_TRUE(torch::equal(cell(2, 1), imgs[2]));
  EXPECT_EQ(g[0].narrow(0, 34, 34).sum().item<int64_t>(), 0);  // class 1 has none: black
}

}  // namespace
}  // namespace hamgan
