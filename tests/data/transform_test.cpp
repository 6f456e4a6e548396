// PIL's BOX and BICUBIC resizes and ADM's center_crop_arr (the
// center-crop-dhariwal transform) against Pillow byte for byte, through the
// image ops, image folders and ZIP archives; transforms refused where a format
// keeps its images as stored.
#include <fstream>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/image_io.h"
#include "data/image_ops.h"
#include "tests/common/data_test_util.h"
#include "tests/common/python_reference.h"

namespace hamgan {
namespace {

namespace fs = std::filesystem;

// Writes case `name` (image + a .shape line) for zip_reference.py crops/resizes.
void write_case(const std::string& dir, const std::string& name, const torch::Tensor& img, const std::string& extra) {
  test::write_raw(dir + "/" + name + ".in", img);
  std::ofstream(dir + "/" + name + ".shape")
      << img.size(0) << " " << img.size(1) << " " << img.size(2) << " " << extra << "\n";
}

std::string differs(const torch::Tensor& got, const torch::Tensor& want) {
  if (!got.sizes().equals(want.sizes())) return "shape " + std::string(c10::str(got.sizes()));
  const auto d = (got.to(torch::kInt) - want.to(torch::kInt)).abs();
  return std::to_string(d.gt(0).sum().item<int64_t>()) + " bytes differ, max " + std::to_string(d.max().item<int>());
}

TEST(PilResample, BoxBicubicAndBilinearMatchPil) {
  const auto dir = test::fresh_dir("pil_resample");
  torch::manual_seed(21);
  struct Case { int64_t c, h, w, oh, ow; const char* filter; PilFilter f; };
  const Case cases[] = {
      {3, 375, 500, 187, 250, "box", PilFilter::kBox},        // ADM's halving, odd side
      {1, 91, 64, 45, 32, "box", PilFilter::kBox},
      {3, 40, 30, 17, 66, "box", PilFilter::kBox},            // up one way, down the other
      {3, 187, 250, 64, 86, "bicubic", PilFilter::kBicubic},  // down: negative lobes clip
      {3, 33, 47, 80, 114, "bicubic", PilFilter::kBicubic},   // up
      {1, 64, 90, 64, 32, "bicubic", PilFilter::kBicubic},    // height unchanged: one pass
      {3, 29, 31, 13, 31, "bicubic", PilFilter::kBicubic},    // width unchanged
      {3, 50, 37, 23, 71, "bilinear", PilFilter::kBilinear},  // height shrinks, width grows: vertical first
      {3, 80, 40, 8, 8, "bilinear", PilFilter::kBilinear},    // both shrink, the height far more: vertical first
      {1, 80, 40, 8, 4, "bicubic", PilFilter::kBicubic},      // 2·36 = 72 exactly: still horizontal first
  };
  int k = 0;
  for (const auto& c : cases)
    write_case(dir, "r" + std::to_string(k++), torch::randint(0, 256, {c.c, c.h, c.w}, torch::kUInt8),
               std::to_string(c.oh) + " " + std::to_string(c.ow) + " " + c.filter);
  RUN_REFERENCE("zip_reference.py", "resizes " + dir);
  k = 0;
  for (const auto& c : cases) {
    const std::string stem = dir + "/r" + std::to_string(k++);
    auto in = test::read_raw(stem + ".in", {c.c, c.h, c.w}, torch::kUInt8);
    auto want = test::read_raw(stem + ".want", {c.c, c.oh, c.ow}, torch::kUInt8);
    auto got = resize_pil(in, c.oh, c.ow, c.f);
    EXPECT_TRUE(torch::equal(got, want)) << c.filter << " " << c.h << "x" << c.w << " -> " << c.oh << "x" << c.ow
                                         << ": " << differs(got, want);
  }
}

TEST(PilResample, CenterCropDhariwalMatchesGuidedDiffusion) {
  const auto dir = test::fresh_dir("dhariwal");
  torch::manual_seed(22);
  struct Case { int64_t c, h, w, size; };
  // (H, W): PIL's 500x375 and 300x1000 photos, an odd square, a small one, one
  // the target upsamples, and one halved three times.
  const Case cases[] = {{3, 375, 500, 64}, {3, 1000, 300, 64}, {3, 257, 257, 64}, {3, 90, 64, 32},
                        {3, 50, 40, 64},   {1, 375, 500, 48},  {3, 530, 600, 64}, {3, 128, 128, 64}};
  int k = 0;
  for (const auto& c : cases)
    write_case(dir, "c" + std::to_string(k++), torch::randint(0, 256, {c.c, c.h, c.w}, torch::kUInt8),
               std::to_string(c.size));
  RUN_REFERENCE("zip_reference.py", "crops " + dir);
  k = 0;
  for (const auto& c : cases) {
    const std::string stem = dir + "/c" + std::to_string(k++);
    auto in = test::read_raw(stem + ".in", {c.c, c.h, c.w}, torch::kUInt8);
    auto want = test::read_raw(stem + ".want", {c.c, c.size, c.size}, torch::kUInt8);
    auto got = center_crop_dhariwal(in, c.size);
    EXPECT_TRUE(torch::equal(got, want)) << c.h << "x" << c.w << " -> " << c.size << ": " << differs(got, want);
  }
}

TEST(PilResample, ImageFoldersAndZipsTakeTheDhariwalTransform) {
  const auto dir = test::fresh_dir("dhariwal_sources");
  torch::manual_seed(23);
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{375, 500}, {90, 64}, {40, 52}, {257, 257}};
  fs::create_directories(dir + "/folder/a");
  fs::create_directories(dir + "/crops");
  for (size_t i = 0; i < shapes.size(); ++i) {
    auto img = torch::randint(0, 256, {3, shapes[i].first, shapes[i].second}, torch::kUInt8);
    save_png(img, dir + "/folder/a/" + std::to_string(i) + ".png");  // lossless: the folder holds `img`
    write_case(dir + "/crops", "f" + std::to_string(i), img, "48");
  }
  RUN_REFERENCE("zip_reference.py", "crops " + dir + "/crops");
  DatasetSpec s;
  s.path = dir + "/folder";
  s.size = 48;
  s.transform = "center-crop-dhariwal";
  auto ds = open_dataset(s);
  ASSERT_EQ(ds->size(), int64_t(shapes.size()));
  for (size_t i = 0; i < shapes.size(); ++i) {
    auto want = test::read_raw(dir + "/crops/f" + std::to_string(i) + ".want", {3, 48, 48}, torch::kUInt8);
    EXPECT_TRUE(torch::equal(ds->get(int64_t(i)).image, want)) << i;  // files sort as 0..3
  }

  // A ZIP of images of another size, decoded by PIL into mixed.imgs: each crop as ADM's.
  RUN_REFERENCE("zip_reference.py", "make " + dir);
  int64_t n, c, h, w, jpeg;
  std::ifstream(dir + "/mixed.shape") >> n >> c >> h >> w;
  std::ifstream(dir + "/mixed.jpeg_index") >> jpeg;
  auto decoded = test::read_raw(dir + "/mixed.imgs", {n, c, h, w}, torch::kUInt8);
  fs::create_directories(dir + "/zipcrops");
  for (int64_t i = 0; i < n; ++i) write_case(dir + "/zipcrops", "z" + std::to_string(100 + i), decoded[i], "16");
  RUN_REFERENCE("zip_reference.py", "crops " + dir + "/zipcrops");
  s.path = dir + "/mixed.zip";
  s.size = 16;
  auto zip = open_dataset(s);
  EXPECT_EQ(zip->channels(), 3);
  EXPECT_EQ(zip->height(), 16);
  for (int64_t i = 0; i < n; ++i) {
    if (i == jpeg) continue;  // decoded by another libjpeg-turbo build
    auto want = test::read_raw(dir + "/zipcrops/z" + std::to_string(100 + i) + ".want", {3, 16, 16}, torch::kUInt8);
    EXPECT_TRUE(torch::equal(zip->get(i).image, want)) << i;
  }
}

TEST(PilResample, TransformsAreRefusedWhereImagesAreKeptAsStored) {
  const auto dir = test::fresh_dir("transform_refused");
  std::ofstream(dir + "/train-images-idx3-ubyte") << "";  // enough to be taken for IDX
  std::ofstream(dir + "/file.hdf5") << "";
  DatasetSpec s;
  s.transform = "center-crop-dhariwal";
  for (const std::string& path : {dir, dir + "/file.hdf5"}) {
    s.path = path;
    try {
      open_dataset(s);
      ADD_FAILURE() << "no error for " << path;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("applies to image folders and ZIP archives only"), std::string::npos)
          << e.what();
    }
  }
  s.path = dir;
  s.transform = "center-crop";
  EXPECT_THROW(open_dataset(s), ConfigError);
}

}  // namespace
}  // namespace hamgan
