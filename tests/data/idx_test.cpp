// IDX (MNIST-style) datasets: padding/resizing, labels, the real
// Fashion-MNIST against a numpy decode, and every kind of broken file.
#include <zlib.h>

#include <fstream>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/image_ops.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

std::string idx_bytes(uint8_t ndims, const std::vector<uint32_t>& dims, const torch::Tensor& data) {
  std::string s = {0, 0, 8, char(ndims)};
  for (uint32_t d : dims) s += {char(d >> 24), char(d >> 16), char(d >> 8), char(d)};
  s.append(static_cast<const char*>(data.data_ptr()), data.nbytes());
  return s;
}

void write_gz(const std::string& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), unsigned(bytes.size()));
  gzclose(f);
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Fixture {
  std::string dir;
  torch::Tensor imgs, labels;
};

Fixture make_idx(const std::string& name, bool gz = true) {
  Fixture f{test::fresh_dir(name), torch::randint(0, 256, {5, 28, 28}, torch::kUInt8),
            torch::tensor({3, 0, 9, 1, 2}, torch::kUInt8)};
  const auto ib = idx_bytes(3, {5, 28, 28}, f.imgs), lb = idx_bytes(1, {5}, f.labels);
  if (gz) {
    write_gz(f.dir + "/train-images-idx3-ubyte.gz", ib);
    write_gz(f.dir + "/train-labels-idx1-ubyte.gz", lb);
  } else {
    std::ofstream(f.dir + "/train-images-idx3-ubyte", std::ios::binary) << ib;
    std::ofstream(f.dir + "/train-labels-idx1-ubyte", std::ios::binary) << lb;
  }
  return f;
}

DatasetSpec spec_for(const std::string& dir) {
  DatasetSpec s;
  s.path = dir;
  return s;
}

TEST(IdxDataset, PadsWithBackgroundAndKeepsLabels) {
  torch::manual_seed(3);
  for (bool gz : {true, false}) {
    auto f = make_idx(gz ? "idx_gz" : "idx_plain", gz);
    auto ds = open_dataset(spec_for(f.dir));
    ASSERT_EQ(ds->size(), 5);
    EXPECT_EQ(ds->num_classes(), 10);  // max label 9 + 1
    EXPECT_EQ(ds->channels(), 1);
    EXPECT_EQ(ds->height(), 32);
    for (int64_t i = 0; i < 5; ++i) {
      auto ex = ds->get(i);
      EXPECT_EQ(ex.label, f.labels[i].item<uint8_t>());
      auto want = torch::zeros({1, 32, 32}, torch::kUInt8);
      want.narrow(1, 2, 28).narrow(2, 2, 28).copy_(f.imgs[i]);  // 2-pixel zero border
      EXPECT_TRUE(torch::equal(ex.image, want)) << i;
    }
  }
}

TEST(IdxDataset, ThreeChannelsAndResizeOption) {
  torch::manual_seed(4);
  auto f = make_idx("idx_opts");
  auto spec = spec_for(f.dir);
  spec.channels = 3;
  auto ds = open_dataset(spec);
  auto ex = ds->get(1);
  ASSERT_EQ(ex.image.sizes(), (std::vector<int64_t>{3, 32, 32}));
  EXPECT_TRUE(torch::equal(ex.image[0], ex.image[2]));
  EXPECT_TRUE(torch::equal(ex.image[1].narrow(0, 2, 28).narrow(1, 2, 28), f.imgs[1]));

  spec.channels = 0;
  spec.idx_resize = true;
  spec.size = 40;
  auto rs = open_dataset(spec);
  test::write_raw(f.dir + "/in.raw", f.imgs[2]);
  ASSERT_EQ(test::oracle("pil-resize " + f.dir + "/in.raw 1 28 28 40 " + f.dir + "/out.raw"), 0);
  EXPECT_TRUE(torch::equal(rs->get(2).image, test::read_raw(f.dir + "/out.raw", {1, 40, 40}, torch::kUInt8)));
}

TEST(IdxDataset, RealFashionMnistMatchesNumpyDecode) {
  const std::string dir = kDefaultFashionMnistDir;
  if (!std::filesystem::exists(dir + "/t10k-images-idx3-ubyte.gz")) GTEST_SKIP() << "no " << dir;
  auto spec = spec_for(dir);
  spec.split = "test";
  spec.size = 28;
  auto ds = open_dataset(spec);
  EXPECT_EQ(ds->size(), 10000);
  EXPECT_EQ(ds->num_classes(), 10);
  const auto tmp = test::fresh_dir("fmnist");
  ASSERT_EQ(test::oracle("idx-dump " + dir + "/t10k-images-idx3-ubyte.gz " + dir + "/t10k-labels-idx1-ubyte.gz 4 " +
                         tmp + "/d"),
            0);
  auto imgs = test::read_raw(tmp + "/d.imgs", {4, 1, 28, 28}, torch::kUInt8);
  auto labels = test::read_raw(tmp + "/d.labels", {4}, torch::kInt64);
  for (int64_t i = 0; i < 4; ++i) {
    auto ex = ds->get(i);
    EXPECT_TRUE(torch::equal(ex.image, imgs[i])) << i;
    EXPECT_EQ(ex.label, labels[i].item<int64_t>()) << i;
  }
}

TEST(IdxDataset, BrokenFilesGiveOneLineErrors) {
  torch::manual_seed(5);
  auto expect_error = [](const std::string& dir, const std::string& needle) {
    try {
      open_dataset(spec_for(dir));
      ADD_FAILURE() << "no error for " << needle;
    } catch (const DataError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(needle), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  };
  {  // labels file missing
    auto f = make_idx("idx_missing");
    std::filesystem::remove(f.dir + "/train-labels-idx1-ubyte.gz");
    expect_error(f.dir, "train-labels-idx1-ubyte.gz: missing");
  }
  {  // gzip stream cut short
    auto f = make_idx("idx_trunc");
    const auto p = f.dir + "/train-images-idx3-ubyte.gz";
    const auto b = file_bytes(p);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << b.substr(0, b.size() - 300);
    expect_error(f.dir, p);
  }
  {  // gzip trailer cut (all pixels present, CRC/length missing)
    auto f = make_idx("idx_trailer");
    const auto p = f.dir + "/train-images-idx3-ubyte.gz";
    const auto b = file_bytes(p);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << b.substr(0, b.size() - 4);
    expect_error(f.dir, p);
  }
  {  // uncompressed file shorter than its header says
    auto f = make_idx("idx_short", false);
    const auto p = f.dir + "/train-images-idx3-ubyte";
    const auto b = file_bytes(p);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << b.substr(0, b.size() - 10);
    expect_error(f.dir, "truncated");
  }
  {  // wrong magic: a labels file where images belong
    auto f = make_idx("idx_magic");
    write_gz(f.dir + "/train-images-idx3-ubyte.gz", idx_bytes(1, {5}, f.labels));
    expect_error(f.dir, "wrong magic");
  }
  {  // counts disagree
    auto f = make_idx("idx_count");
    write_gz(f.dir + "/train-labels-idx1-ubyte.gz", idx_bytes(1, {4}, f.labels.narrow(0, 0, 4)));
    expect_error(f.dir, "4 labels for 5 images");
  }
  {
    auto f = make_idx("idx_split");
    auto spec = spec_for(f.dir);
    spec.split = "valid";
    EXPECT_THROW(open_dataset(spec), ConfigError);
  }
}

}  // namespace
}  // namespace hamgan
