// The CLI on bad input: one "hamgan: error:" line naming the file, exit 1;
// data-info's grid laid out a row per class.
#include <zlib.h>

#include <csignal>
#include <cstdio>
#include <fstream>

#include "data/image_io.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

constexpr const char* kFashionDir = "/usr/share/datasets/fashion-mnist";

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

TEST(DataCli, InterruptedPrepareLeavesNoFileAndExitsAsAStop) {
  if (!std::getenv("HAMGAN_BIN")) GTEST_SKIP() << "HAMGAN_BIN unset";
  if (!std::filesystem::exists(std::string(kFashionDir) + "/t10k-images-idx3-ubyte.gz")) GTEST_SKIP() << "no data";
  const auto dir = test::fresh_dir("cli_sigint");
  // Resizing 10,000 images to 256×256 on one thread takes seconds: SIGINT
  // arrives once the temporary file exists, i.e. in the middle of writing.
  const std::string out = dir + "/out.hdf5", err = dir + "/err.txt";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::freopen(err.c_str(), "w", stderr);
    std::freopen("/dev/null", "w", stdout);
    execl(std::getenv("HAMGAN_BIN"), "hamgan", "prepare", "--split", "test", "--size", "256", "--idx_resize",
          "--workers", "1", "--no_progress", "--output", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  auto tmp_exists = [&] {
    for (auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().filename().string().rfind("out.hdf5.tmp.", 0) == 0) return true;
    return false;
  };
  bool started = false;
  for (int i = 0; i < 600 && !started; ++i) {  // up to 60 s on a loaded machine
    started = tmp_exists();
    if (!started) usleep(100000);
    int st;
    if (!started && waitpid(pid, &st, WNOHANG) == pid) GTEST_SKIP() << "prepare ended before writing";
  }
  ASSERT_TRUE(started);
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) GTEST_SKIP() << "prepare finished before the signal";
  ASSERT_TRUE(WIFEXITED(st)) << "killed by signal " << WTERMSIG(st);
  EXPECT_EQ(WEXITSTATUS(st), 130);  // a stop, as a shell reports Ctrl-C: not an error
  std::ifstream in(err);
  std::string msg((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(msg.find("hamgan: stopped: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("interrupted"), std::string::npos) << msg;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(tmp_exists());
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
