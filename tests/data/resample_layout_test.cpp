// The resize reads any strides: a (C, H, W) view of interleaved pixels (how
// JPEGs decode), crops of it and other strided views must give exactly the
// bytes of the planar path, which image_io_test.cpp and transform_test.cpp
// compare with PIL.
#include <gtest/gtest.h>

#include "data/image_io.h"
#include "data/image_ops.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

void expect_same_as_planar(const torch::Tensor& view, int64_t oh, int64_t ow, PilFilter f, const std::string& what) {
  const auto got = resize_pil(view, oh, ow, f), want = resize_pil(view.contiguous(), oh, ow, f);
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  EXPECT_TRUE(got.is_contiguous()) << what;
  EXPECT_TRUE(torch::equal(got, want)) << what << ": " << (got.to(torch::kInt) - want.to(torch::kInt)).abs().max();
}

TEST(ResampleLayout, StridedViewsGiveThePlanarBytes) {
  torch::manual_seed(3);
  struct Case { int64_t h, w, oh, ow; };
  // Downscales (the tap counts of the unrolled kernels and past them), upscales,
  // odd heights, one-pixel images, and a tall image the vertical pass takes first.
  for (auto k : {Case{375, 500, 128, 128}, Case{500, 375, 128, 128}, Case{37, 50, 16, 16}, Case{33, 33, 64, 64},
                 Case{7, 9, 3, 20}, Case{1, 1, 5, 5}, Case{64, 41, 32, 32}, Case{300, 13, 20, 17},
                 Case{97, 1000, 40, 40}, Case{2, 3, 1, 1}})
    for (auto f : {PilFilter::kBox, PilFilter::kBilinear, PilFilter::kBicubic}) {
      const std::string what = std::to_string(k.h) + "x" + std::to_string(k.w) + "->" + std::to_string(k.oh) + "x" +
                               std::to_string(k.ow) + " filter " + std::to_string(int(f));
      const auto hwc = torch::randint(0, 256, {k.h, k.w, 3}, torch::kUInt8);
      const auto interleaved = hwc.permute({2, 0, 1});
      expect_same_as_planar(interleaved, k.oh, k.ow, f, what + " interleaved");
      const auto square = center_crop_square(interleaved);
      expect_same_as_planar(square, k.oh, k.oh, f, what + " centre square of interleaved");
      expect_same_as_planar(center_crop_square(interleaved.contiguous()), k.oh, k.oh, f, what + " planar crop");
      // Four interleaved channels of which three are used: a stride the kernels do not specialise.
      const auto rgba = torch::randint(0, 256, {k.h, k.w, 4}, torch::kUInt8).permute({2, 0, 1}).narrow(0, 0, 3);
      expect_same_as_planar(rgba, k.oh, k.ow, f, what + " stride 4");
      const auto gray = torch::randint(0, 256, {k.h, k.w, 1}, torch::kUInt8).permute({2, 0, 1});
      expect_same_as_planar(gray, k.oh, k.ow, f, what + " gray");
    }
}

TEST(ResampleLayout, DecodedJpegsResizeAsTheirPlanarCopies) {
  const auto dir = test::fresh_dir("resample_layout");
  torch::manual_seed(4);
  for (auto shape : {std::vector<int64_t>{3, 75, 100}, std::vector<int64_t>{3, 101, 67}, std::vector<int64_t>{1, 50, 80}}) {
    const std::string path = dir + "/img.jpg";
    save_jpeg(torch::randint(0, 256, shape, torch::kUInt8), path, 90);
    const auto decoded = load_jpeg(path);
    ASSERT_EQ(decoded.sizes(), torch::IntArrayRef(shape));
    expect_same_as_planar(center_crop_square(decoded), 32, 32, PilFilter::kBilinear, "jpeg " + std::to_string(shape[1]));
  }
}

}  // namespace
}  // namespace hamgan
