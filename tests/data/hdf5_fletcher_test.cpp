// Fletcher-32 checksums of HDF5 chunks: the whole-chunk reader verifies them as
// HDF5 does (checked against files h5py wrote, and a flipped byte h5py refuses),
// `prepare` writes them with every compressed file, and a damaged chunk is one
// line naming the file and the chunk's images in the loader, `prepare` and
// `data-info`. LZF files without them are said to be uncheckable.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/hdf5_chunks.h"
#include "data/loader.h"
#include "data/prepare.h"
#include "metrics/npz.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

class Hdf5Fletcher : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_dir("data", "hdf5_fletcher");
    std::string out;
    if (python("write " + dir_, &out) != 0) REFERENCE_MISSING("h5py cannot write the files: " << out);
  }
  static int python(const std::string& args, std::string* out = nullptr) {
    return test::run_command(HAMGAN_PYTHON " " + test::python_script("hdf5_fletcher.py") + " " + args, out);
  }
  static std::shared_ptr<Dataset> open(const std::string& path) {
    DatasetSpec spec;
    spec.path = path;
    return open_dataset(spec);
  }
  // Chunk k of `ds` whole, through the reader the loader uses.
  static torch::Tensor chunk(const Dataset& ds, int64_t k) {
    const int64_t rows = std::min(ds.chunk_rows(), ds.size() - k * ds.chunk_rows());
    auto out = torch::empty({rows, ds.channels(), ds.height(), ds.width()}, torch::kUInt8);
    ds.read_chunk(k, out.data_ptr<uint8_t>());
    return out;
  }
  // The DataError of reading chunk k ("" when it reads).
  static std::string chunk_error(const Dataset& ds, int64_t k) {
    try {
      chunk(ds, k);
    } catch (const DataError& e) {
      return e.what();
    }
    return "";
  }
  std::string dir_;
};

TEST_F(Hdf5Fletcher, TheSumOfHdf5OverBigEndianWordsWithAnOddLastByte) {
  // By hand: words 0x0102, 0x0304 and the odd byte 0x05 as 0x0500.
  const uint8_t bytes[] = {1, 2, 3, 4, 5};
  const uint32_t sum1 = 0x0102 + 0x0304 + 0x0500, sum2 = 0x0102 + (0x0102 + 0x0304) + sum1;
  EXPECT_EQ(hdf5::fletcher32(bytes, 5), (sum2 << 16) | sum1);
  EXPECT_EQ(hdf5::fletcher32(bytes, 4), ((0x0102u + 0x0102 + 0x0304) << 16) | (0x0102 + 0x0304));
}

TEST_F(Hdf5Fletcher, FilesH5pyWroteWithChecksumsReadChunkByChunkPixelForPixel) {
  auto expected = read_npz(dir_ + "/fletcher_expected.npz");
  const auto lzf = open(dir_ + "/lzf_fletcher.hdf5");
  ASSERT_EQ(lzf->chunk_rows(), 500);
  EXPECT_TRUE(torch::equal(chunk(*lzf, 0), expected["imgs"].slice(0, 0, 500)));
  EXPECT_TRUE(torch::equal(chunk(*lzf, 1), expected["imgs"].slice(0, 500, 700)));  // odd compressed size
  // Uncompressed chunks of 525 bytes: the odd last byte of every chunk is summed as HDF5 sums it.
  const auto plain = open(dir_ + "/plain_fletcher.hdf5");
  ASSERT_EQ(plain->chunk_rows(), 7);
  for (int64_t k = 0; k < 5; ++k)
    EXPECT_TRUE(torch::equal(chunk(*plain, k), expected["small"].slice(0, 7 * k, std::min<int64_t>(30, 7 * k + 7))))
        << k;
  EXPECT_EQ(lzf->check_integrity(), "all 2 chunks verified (Fletcher-32)");
}

TEST_F(Hdf5Fletcher, AByteH5pyRefusesIsRefusedNamingTheFileAndTheChunksImages) {
  const std::string path = dir_ + "/lzf_fletcher.hdf5";
  ASSERT_EQ(python("flip " + path + " 1"), 0);
  std::string out;
  ASSERT_EQ(python("read " + path, &out), 3) << "h5py should refuse the flipped byte: " << out;
  const auto ds = open(path);
  EXPECT_EQ(chunk_error(*ds, 0), "");
  const std::string e = chunk_error(*ds, 1);
  EXPECT_EQ(e, path + ": images 500..699 (chunk 1) fail their Fletcher-32 checksum; the file is damaged: restore "
                      "it from a good copy or re-create it with 'hamgan prepare'");
}

// Before: `prepare --compression lzf` wrote no checksum, and the byte flipped
// here decompressed to wrong pixels that the loader, `prepare` and `data-info` passed on.
TEST_F(Hdf5Fletcher, PrepareWritesChecksumsAndADamagedChunkStopsTheLoaderPrepareAndDataInfo) {
  PrepareConfig cfg;
  cfg.source.path = dir_ + "/lzf_fletcher.hdf5";
  cfg.output = dir_ + "/ours.hdf5";
  cfg.compression = "lzf";
  cfg.progress = false;
  prepare_dataset(cfg);
  std::string filters;
  ASSERT_EQ(python("filters " + cfg.output, &filters), 0) << filters;
  EXPECT_EQ(filters, "32000,3\n");  // LZF, then Fletcher-32 over the compressed bytes, as h5py orders them
  ASSERT_EQ(python("read " + cfg.output), 0);
  ASSERT_EQ(python("flip " + cfg.output + " 0"), 0);
  const std::string named = cfg.output + ": images 0..499 (chunk 0) fail their Fletcher-32 checksum";

  LoaderOptions o;
  o.batch_size = 100;
  o.workers = 0;
  DataLoader loader(open(cfg.output), o);
  try {
    for (int b = 0; b < 7; ++b) loader.next();  // the epoch reads both chunks
    FAIL() << "the loader passed a damaged chunk on";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
  }
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  for (const std::string& args : {"data-info " + cfg.output + " --grid ''",
                                  "prepare --input " + cfg.output + " --output " + dir_ + "/copy.hdf5 --no_progress"}) {
    std::string out;  // stderr alone
    const int status = test::run_command("{ " + std::string(test::hamgan_bin()) + " " + args + " >/dev/null; }", &out);
    EXPECT_EQ(status, 1) << args << ": " << out;
    EXPECT_EQ(out.rfind("hamgan: error: ", 0), 0u) << out;
    EXPECT_NE(out.find(named), std::string::npos) << out;
    EXPECT_EQ(out.find('\n'), out.size() - 1) << out;  // one line
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/copy.hdf5"));
}

TEST_F(Hdf5Fletcher, DataInfoSaysAnLzfFileWithoutChecksumsCannotBeChecked) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  std::string out;
  ASSERT_EQ(test::run_command(HAMGAN_PYTHON " " + test::python_script("hdf5_lzf.py") + " write " + dir_, &out), 0)
      << out;
  int status = 0;
  out = test::run_hamgan("data-info " + dir_ + "/lzf.hdf5 --grid ''", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("  checksums: LZF chunks without Fletcher-32 checksums (h5py writes them unless "
                     "fletcher32=True): damage inside a chunk cannot be detected; 'hamgan prepare --input " +
                     dir_ + "/lzf.hdf5 --output COPY.hdf5 --compression lzf' writes a copy with checksums\n"),
            std::string::npos)
      << out;
  out = test::run_hamgan("data-info " + dir_ + "/lzf_fletcher.hdf5 --grid ''", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("  checksums: all 2 chunks verified (Fletcher-32)\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace hamgan
