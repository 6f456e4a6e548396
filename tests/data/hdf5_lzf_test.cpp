// LZF-compressed HDF5 (h5py's filter 32000, BigGAN-PyTorch's make_hdf5.py
// --compression): read pixel for pixel, written back readable by h5py, and a
// filter no build here has named in one line.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/prepare.h"
#include "metrics/npz.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

class Hdf5Lzf : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_dir("data", "hdf5_lzf");
    std::string out;
    if (test::run_command(HAMGAN_PYTHON " " + test::python_script("hdf5_lzf.py") + " write " + dir_ + " 2>&1", &out) != 0)
      REFERENCE_MISSING("h5py cannot write the files: " << out);
  }
  static std::string h5py_summary(const std::string& path) {
    std::string out;
    EXPECT_EQ(test::run_command(HAMGAN_PYTHON " " + test::python_script("hdf5_lzf.py") + " read " + path + " 2>&1", &out), 0)
        << out;
    return out;
  }
  std::string dir_;
};

TEST_F(Hdf5Lzf, H5pyLzfFilesReadPixelForPixel) {
  DatasetSpec spec;
  spec.path = dir_ + "/lzf.hdf5";
  const auto ds = open_dataset(spec);
  auto expected = read_npz(dir_ + "/lzf_expected.npz");
  ASSERT_EQ(ds->size(), 700);
  for (int64_t i : {0, 1, 499, 500, 699}) {  // both chunks, the second one partial
    const Example e = ds->get(i);
    EXPECT_TRUE(torch::equal(e.image, expected["imgs"][i])) << i;
    EXPECT_EQ(e.label, expected["labels"][i].item<int64_t>()) << i;
  }
}

TEST_F(Hdf5Lzf, PrepareWritesLzfThatH5pyReads) {
  PrepareConfig cfg;
  cfg.source.path = dir_ + "/lzf.hdf5";
  cfg.output = dir_ + "/ours_lzf.hdf5";
  cfg.compression = "lzf";
  cfg.progress = false;
  prepare_dataset(cfg);
  // The same shape, pixel and label sums as the source, and the LZF filter on both
  // datasets, with Fletcher-32 checksums (h5py names the filters "lzf" and "fletcher32").
  const std::string src = h5py_summary(dir_ + "/lzf.hdf5"), ours = h5py_summary(cfg.output);
  EXPECT_EQ(src.substr(src.rfind(' ')), " lzf\n") << src;
  EXPECT_EQ(ours, src.substr(0, src.rfind(' ')) + " fletcher32,lzf\n") << ours << " vs " << src;
}

TEST_F(Hdf5Lzf, AFilterThisBuildLacksIsNamedWithItsSource) {
  DatasetSpec spec;
  spec.path = dir_ + "/blosc.hdf5";
  try {
    open_dataset(spec);
    FAIL() << "opened a file whose filter is unavailable";
  } catch (const DataError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("HDF5 filter 32001"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Blosc"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace hamgan
