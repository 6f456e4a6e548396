// Image folders: class order, PIL-equal pixels for PNG/JPEG variants, skipped
// and unreadable files, and folder → HDF5 → load round trip.
#include <fstream>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/image_io.h"
#include "data/prepare.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

namespace fs = std::filesystem;

struct Folder {
  std::string root;
  int64_t n = 0;
  torch::Tensor imgs, labels;  // expected, from PIL
};

Folder make_folder(const std::string& name, int64_t size) {
  Folder f;
  const auto dir = test::fresh_dir(name);
  f.root = dir + "/train";
  EXPECT_EQ(test::oracle("make-folder " + f.root + " " + std::to_string(size) + " " + dir + "/want > " + dir +
                         "/count.txt"),
            0);
  std::ifstream(dir + "/count.txt") >> f.n;
  f.imgs = test::read_raw(dir + "/want.imgs", {f.n, 3, size, size}, torch::kUInt8);
  f.labels = test::read_raw(dir + "/want.labels", {f.n}, torch::kInt64);
  return f;
}

int64_t max_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kInt) - b.to(torch::kInt)).abs().max().item<int64_t>();
}

TEST(ImageFolder, SortedClassesAndPixelsAsBigGanPreparesThem) {
  auto f = make_folder("folder_pixels", 24);
  ASSERT_EQ(f.n, 13);
  DatasetSpec s;
  s.path = f.root;
  s.size = 24;
  auto ds = open_dataset(s);
  ASSERT_EQ(ds->size(), f.n);
  EXPECT_EQ(ds->num_classes(), 3);
  EXPECT_EQ(ds->channels(), 3);
  for (int64_t i = 0; i < f.n; ++i) {
    auto ex = ds->get(i);
    EXPECT_EQ(ex.label, f.labels[i].item<int64_t>()) << i;
    // PNG paths are bit-exact with PIL; JPEG goes through two builds of
    // libjpeg-turbo (system vs PIL's), which may differ by one level.
    EXPECT_LE(max_diff(ex.image, f.imgs[i]), 1) << i;
  }
  // Bit-exact on the PNG files (image 0 of each class: img0.png).
  EXPECT_TRUE(torch::equal(ds->get(0).image, f.imgs[0]));
}

TEST(ImageFolder, UnreadableFilesAreSkippedAndCounted) {
  auto f = make_folder("folder_skip", 16);
  std::ofstream(f.root + "/a_dog/zz_text.jpg") << "this is text";
  std::ofstream(f.root + "/a_dog/notes.txt") << "ignored: not an image extension";
  // A JPEG cut short: valid signature, so it fails only when decoded.
  std::ifstream in(f.root + "/a_dog/img3.JPEG", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(f.root + "/c_owl/zz_cut.jpg", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  DatasetSpec s;
  s.path = f.root;
  s.size = 16;
  s.quiet = true;
  auto ds = open_dataset(s);
  EXPECT_EQ(ds->size(), f.n + 1);  // text file skipped at open, the cut JPEG kept for now
  EXPECT_THROW(ds->get(ds->size() - 1), DataError);
  EXPECT_THROW(load_jpeg(f.root + "/c_owl/zz_cut.jpg"), DataError);

  PrepareConfig cfg;
  cfg.source = s;
  cfg.output = fs::path(f.root).parent_path().string() + "/out.hdf5";
  cfg.progress = false;
  const auto r = prepare_dataset(cfg);
  EXPECT_EQ(r.written, f.n);
  EXPECT_EQ(r.skipped, 1);
  DatasetSpec hs;
  hs.path = cfg.output;
  auto h5 = open_dataset(hs);
  ASSERT_EQ(h5->size(), f.n);
  for (int64_t i = 0; i < f.n; ++i) {
    EXPECT_TRUE(torch::equal(h5->get(i).image, ds->get(i).image)) << i;
    EXPECT_EQ(h5->get(i).label, f.labels[i].item<int64_t>()) << i;
  }
}

TEST(ImageFolder, CmykJpegDecodesLikePil) {
  const auto dir = test::fresh_dir("cmyk");
  ASSERT_EQ(test::oracle("cmyk-jpeg " + dir + "/c.jpg " + dir + "/want.raw"), 0);
  auto got = load_image(dir + "/c.jpg");
  ASSERT_EQ(got.sizes(), (std::vector<int64_t>{3, 24, 30}));
  // PIL rounds (255 − K)·(255 − C)/255 with its own fixed-point MULDIV255.
  EXPECT_LE(max_diff(got, test::read_raw(dir + "/want.raw", {3, 24, 30}, torch::kUInt8)), 1);
}

// A folder of images and no class sub-folders, as FID tools take it: one class,
// files in name order, pixels as written; hidden folders and other files aside.
TEST(ImageFolder, AFlatFolderIsOneClassOfItsImages) {
  auto f = make_folder("folder_flat_source", 24);
  const auto dir = test::fresh_dir("folder_flat");
  const int64_t n = std::min<int64_t>(f.n, 12);
  for (int64_t i = n - 1; i >= 0; --i) {  // written out of order: the order read is the names'
    char name[32];
    std::snprintf(name, sizeof(name), "/%04lld.png", static_cast<long long>(i));
    save_png(f.imgs[i], dir + name);
  }
  fs::create_directories(dir + "/.cache");
  save_png(f.imgs[0], dir + "/.cache/thumb.png");
  std::ofstream(dir + "/notes.txt") << "not an image";
  DatasetSpec s;
  s.path = dir;
  s.size = 24;
  auto ds = open_dataset(s);
  ASSERT_EQ(ds->size(), n);
  EXPECT_EQ(ds->num_classes(), 1);
  for (int64_t i = 0; i < n; ++i) {
    const Example e = ds->get(i);
    EXPECT_EQ(e.label, 0);
    EXPECT_TRUE(torch::equal(e.image, f.imgs[i])) << i;
  }
}

TEST(ImageFolder, NoReadableImageIsAnError) {
  const auto dir = test::fresh_dir("folder_none");
  DatasetSpec s;
  s.path = dir;
  EXPECT_THROW(open_dataset(s), DataError);  // no class folders
  fs::create_directories(dir + "/cls");
  std::ofstream(dir + "/cls/a.png") << "text";
  try {
    open_dataset(s);
    FAIL() << "no error";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("no readable PNG or JPEG"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hamgan
