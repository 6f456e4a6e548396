// HDF5 output that runs out of room (a full disk, a file size limit): one
// line, exit status 1, no file left behind, and no crash while HDF5 closes a
// file it could not flush (it used to segfault, exit 139).
#include <sys/mount.h>

#include "core/errors.h"
#include "data/hdf5_writer.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

namespace fs = std::filesystem;

// n random (incompressible) 3x32x32 images as an HDF5 source.
std::string random_source(const std::string& dir, int64_t n) {
  const std::string path = dir + "/src.hdf5";
  const torch::Tensor imgs = torch::randint(0, 256, {n, 3, 32, 32}, torch::kUInt8);
  const torch::Tensor labels = torch::randint(0, 10, {n}, torch::kInt64);
  Hdf5Writer w(path, 3, 32, 32);
  w.append(imgs.data_ptr<uint8_t>(), labels.data_ptr<int64_t>(), n);
  w.finish(10);
  return path;
}

struct CliRun {
  int status = -1;
  std::string output;
};

// `hamgan prepare` with the process's file size limited to `limit_kib` (ulimit -f,
// SIGXFSZ ignored as a shell user would see it: writes fail with EFBIG).
CliRun prepare(const std::string& args, int64_t limit_kib = 0) {
  CliRun r;
  const std::string limit = limit_kib > 0 ? "trap '' XFSZ; ulimit -f " + std::to_string(limit_kib) + "; " : "";
  r.status = test::run_command("bash -c \"" + limit + "exec " + test::hamgan_bin() + " prepare --no_progress " + args +
                                   " 2>&1 >/dev/null\"",
                               &r.output);
  return r;
}

void expect_one_line_and_nothing_left(const CliRun& r, const std::string& out_dir, const std::string& out,
                                      const std::string& why) {
  EXPECT_EQ(r.status, 1) << r.output;  // not 139
  // The file asked for, not its temporary.
  EXPECT_EQ(r.output.rfind("hamgan: error: " + out + ": ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find(why), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_TRUE(fs::is_empty(out_dir)) << "left behind in " << out_dir;
}

TEST(Hdf5OutOfRoom, AFileSizeLimitMidWriteAndAtTheEndGivesOneLineAndNoFile) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN unset";
  const auto dir = test::fresh_dir("h5_fsize");
  fs::create_directories(dir + "/out");
  const std::string out = dir + "/out/x.hdf5";
  // 2500 images (7.5 MiB) fail while appending; 600 (1.8 MiB) are still in
  // HDF5's chunk cache when the 1 MiB limit is reached, at the final flush.
  for (int64_t n : {2500, 600}) {
    fs::create_directories(dir + "/" + std::to_string(n));
    const std::string src = random_source(dir + "/" + std::to_string(n), n);
    for (const char* compression : {"none", "gzip"}) {
      SCOPED_TRACE(std::to_string(n) + " images, " + compression);
      const CliRun r = prepare("--input " + src + " --output " + out + " --compression " + compression, 1024);
      expect_one_line_and_nothing_left(r, dir + "/out", out, "file size limit");
    }
  }
}

// A real full file system: a 1 MiB tmpfs (needs root and mount; skipped otherwise).
class Tmpfs {
 public:
  explicit Tmpfs(const std::string& dir) : dir_(dir) {
    fs::create_directories(dir);
    mounted_ = ::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=1m") == 0;
  }
  ~Tmpfs() {
    if (mounted_) ::umount(dir_.c_str());
  }
  bool mounted() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

TEST(Hdf5OutOfRoom, AFullDiskGivesOneLineAndNoFile) {
  const auto dir = test::fresh_dir("h5_full");
  Tmpfs small(dir + "/small");
  if (!small.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (not root?)";
  const std::string src = random_source(dir, 2500);
  {
    // The writer alone (no free-space check before it starts): the failed append throws, and
    // destroying the writer afterwards must not crash.
    Hdf5Writer w(dir + "/small/direct.hdf5", 3, 32, 32);
    const torch::Tensor imgs = torch::randint(0, 256, {2500, 3, 32, 32}, torch::kUInt8);
    const std::vector<int64_t> labels(2500, 1);
    try {
      for (int64_t i = 0; i < 5; ++i) w.append(imgs.data_ptr<uint8_t>() + i * 500 * 3072, labels.data(), 500);
      w.finish(10);
      FAIL() << "7.5 MiB written to a 1 MiB file system";
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find("the disk is full"), std::string::npos) << e.what();
    }
  }
  fs::remove(dir + "/small/direct.hdf5");
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN unset";
  const std::string out = dir + "/small/x.hdf5";
  // Compressed output skips the up-front space check (it may fit), so the disk fills while writing.
  for (const char* compression : {"gzip", "lzf"}) {
    SCOPED_TRACE(compression);
    expect_one_line_and_nothing_left(
        prepare("--input " + src + " --output " + out + " --compression " + compression), dir + "/small", out,
        "the disk is full");
  }
  // Uncompressed output is refused before anything is written.
  expect_one_line_and_nothing_left(prepare("--input " + src + " --output " + out), dir + "/small", out,
                                   "free space or write elsewhere");
}

}  // namespace
}  // namespace hamgan
