// Image headers that claim absurd sizes are refused by name and limit before
// any pixel is allocated; real photo sizes still decode. JPEG writing checked
// against PIL's decoder.
#include <zlib.h>

#include <fstream>

#include "core/errors.h"
#include "data/image_io.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

std::string bytes_of(const std::string& path) { return test::file_contents(path); }

// A real PNG whose IHDR is rewritten to claim width x height (CRC fixed, pixel data unchanged).
std::string png_claiming(const std::string& dir, uint32_t width, uint32_t height) {
  const std::string small = dir + "/small.png";
  save_png(torch::zeros({3, 4, 4}, torch::kUInt8), small);
  std::string b = bytes_of(small);
  for (int i = 0; i < 4; ++i) {
    b[16 + i] = char(width >> (24 - 8 * i));
    b[20 + i] = char(height >> (24 - 8 * i));
  }
  const uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(b.data() + 12), 17);  // "IHDR" + 13 data bytes
  for (int i = 0; i < 4; ++i) b[29 + i] = char(crc >> (24 - 8 * i));
  const std::string path = dir + "/claims_" + std::to_string(width) + "x" + std::to_string(height) + ".png";
  std::ofstream(path, std::ios::binary) << b;
  return path;
}

// A real JPEG whose SOF0 frame header is rewritten to claim width x height.
std::string jpeg_claiming(const std::string& dir, uint16_t width, uint16_t height) {
  const std::string small = dir + "/small.jpg";
  save_jpeg(torch::full({3, 16, 16}, 128, torch::kUInt8), small);
  std::string b = bytes_of(small);
  const size_t sof = b.find("\xFF\xC0");
  EXPECT_NE(sof, std::string::npos);
  b[sof + 5] = char(height >> 8), b[sof + 6] = char(height);
  b[sof + 7] = char(width >> 8), b[sof + 8] = char(width);
  const std::string path = dir + "/claims_" + std::to_string(width) + "x" + std::to_string(height) + ".jpg";
  std::ofstream(path, std::ios::binary) << b;
  return path;
}

std::string load_error(const std::string& path) {
  try {
    load_image(path);
  } catch (const DataError& e) {
    return e.what();
  }
  return "(decoded)";
}

TEST(ImageLimits, OversizedPngAndJpegHeadersNameTheFileAndTheLimit) {
  const auto dir = test::fresh_dir("image_limits");
  const std::string cases[] = {png_claiming(dir, 20000, 100), png_claiming(dir, 16000, 16000),
                               jpeg_claiming(dir, 16000, 16000), jpeg_claiming(dir, 100, 20000)};
  const std::string sizes[] = {"20000x100", "16000x16000", "16000x16000", "100x20000"};
  for (int i = 0; i < 4; ++i) {
    const std::string msg = load_error(cases[i]);
    EXPECT_EQ(msg.rfind(cases[i] + ": " + sizes[i] + " is over the limit for images", 0), 0u) << msg;
    EXPECT_NE(msg.find("16384 pixels per side and 67108864 pixels in all"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(ImageLimits, LargePhotoSizesStillDecode) {
  const auto dir = test::fresh_dir("image_limits_ok");
  // 6000x4000 (24 Mpixel) is a large camera photo: within the limits, so the
  // size is not refused (the file then fails only because its data is 4x4).
  for (const std::string& path : {png_claiming(dir, 6000, 4000), jpeg_claiming(dir, 6000, 4000)})
    EXPECT_EQ(load_error(path).find("over the limit"), std::string::npos) << load_error(path);
  EXPECT_EQ(load_png(png_claiming(dir, 4, 4)).sizes(), (std::vector<int64_t>{3, 4, 4}));
}

TEST(JpegWrite, UintAndFloatImagesDecodeInPilCloseToTheOriginal) {
  const auto dir = test::fresh_dir("jpeg_write");
  // Smooth gradients: what JPEG is for, so quality 95 must give a high PSNR.
  const auto y = torch::arange(48, torch::kFloat).view({1, 48, 1});
  const auto x = torch::arange(64, torch::kFloat).view({1, 1, 64});
  const torch::Tensor rgb =
      torch::cat({(x * 4).expand({1, 48, 64}), (y * 5).expand({1, 48, 64}), (x + y).expand({1, 48, 64})})
          .clamp(0, 255)
          .to(torch::kUInt8);
  struct Case {
    torch::Tensor image, original;  // what is written, and its uint8 meaning
    std::string name;
  };
  const torch::Tensor gray = rgb.narrow(0, 0, 1).contiguous();
  const torch::Tensor as_float = rgb.to(torch::kFloat) / 127.5 - 1.0;  // [-1, 1], as generators produce
  for (const Case& k : {Case{rgb, rgb, "rgb"}, Case{gray, gray, "gray"}, Case{as_float, to_uint8(as_float), "float"}}) {
    const std::string jpg = dir + "/" + k.name + ".jpg", raw = dir + "/" + k.name + ".raw";
    save_jpeg(k.image, jpg, 95);
    test::write_raw(raw, k.original);
    EXPECT_EQ(test::oracle("jpeg-psnr " + jpg + " " + raw + " " + std::to_string(k.original.size(0)) + " 48 64 35"), 0)
        << k.name;
    // Our own decoder reads it back too, within the same bound.
    const torch::Tensor back = load_jpeg(jpg);
    ASSERT_EQ(back.sizes(), k.original.sizes()) << k.name;
    const double mse = (back.to(torch::kDouble) - k.original.to(torch::kDouble)).pow(2).mean().item<double>();
    EXPECT_GT(10 * std::log10(255.0 * 255.0 / std::max(mse, 1e-12)), 35.0) << k.name;
  }
  // Lower quality: smaller file, still a JPEG PIL reads.
  save_jpeg(rgb, dir + "/q30.jpg", 30);
  EXPECT_LT(bytes_of(dir + "/q30.jpg").size(), bytes_of(dir + "/rgb.jpg").size());
  test::write_raw(dir + "/q30.raw", rgb);
  EXPECT_EQ(test::oracle("jpeg-psnr " + dir + "/q30.jpg " + dir + "/q30.raw 3 48 64 25"), 0);
}

TEST(JpegWrite, BadArgumentsAreOneLineErrorsAndWriteNothing) {
  const auto dir = test::fresh_dir("jpeg_write_bad");
  EXPECT_THROW(save_jpeg(torch::zeros({2, 8, 8}, torch::kUInt8), dir + "/two.jpg"), DataError);
  EXPECT_THROW(save_jpeg(torch::zeros({8, 8}, torch::kUInt8), dir + "/flat.jpg"), DataError);
  EXPECT_THROW(save_jpeg(torch::zeros({3, 8, 8}, torch::kUInt8), dir + "/q0.jpg", 0), ConfigError);
  EXPECT_THROW(save_jpeg(torch::zeros({3, 8, 8}, torch::kUInt8), dir + "/q101.jpg", 101), ConfigError);
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

}  // namespace
}  // namespace hamgan
