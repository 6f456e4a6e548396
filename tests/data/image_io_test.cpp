// PNG grids and pixel operations against independent references: a grid built
// pixel by pixel from its definition, PIL decoding our PNGs, PIL resizing.
#include <sys/resource.h>
#include <zlib.h>

#include <fstream>

#include "core/errors.h"
#include "data/image_io.h"
#include "data/image_ops.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

// Grid pixel (c, y, x) from the make_grid definition, one pixel at a time.
torch::Tensor reference_grid(const torch::Tensor& imgs, int64_t nrow, int64_t pad, int64_t value) {
  const int64_t n = imgs.size(0), c = imgs.size(1), h = imgs.size(2), w = imgs.size(3);
  const int64_t cols = std::min(nrow, n), rows = (n + cols - 1) / cols;
  const int64_t gh = rows * (h + pad) + pad, gw = cols * (w + pad) + pad;
  auto g = torch::empty({c, gh, gw}, torch::kUInt8);
  auto a = imgs.accessor<uint8_t, 4>();
  auto ga = g.accessor<uint8_t, 3>();
  for (int64_t y = 0; y < gh; ++y)
    for (int64_t x = 0; x < gw; ++x) {
      const int64_t cy = (y - pad) / (h + pad), oy = (y - pad) % (h + pad);
      const int64_t cx = (x - pad) / (w + pad), ox = (x - pad) % (w + pad);
      const int64_t k = cy * cols + cx;
      const bool inside = y >= pad && x >= pad && oy < h && ox < w && k < n;
      for (int64_t ch = 0; ch < c; ++ch) ga[ch][y][x] = inside ? a[k][ch][oy][ox] : uint8_t(value);
    }
  return g;
}

TEST(ImageIo, PngGridDecodesToTheDefinedLayout) {
  const auto dir = test::fresh_dir("grid");
  torch::manual_seed(1);
  for (int64_t c : {1, 3}) {
    auto imgs = torch::randint(0, 256, {5, c, 4, 6}, torch::kUInt8);
    const std::string png = dir + "/grid" + std::to_string(c) + ".png";
    save_png_grid(imgs, png, /*nrow=*/2, /*padding=*/3, /*pad_value=*/17);
    auto want = reference_grid(imgs, 2, 3, 17);
    auto got = load_png(png);
    ASSERT_EQ(got.sizes(), want.sizes());
    EXPECT_TRUE(torch::equal(got, want));
    // PIL decodes the same bytes: the file is a standard PNG, not just self-consistent.
    test::write_raw(png + ".raw", want);
    EXPECT_EQ(test::oracle("png-check " + png + " " + png + ".raw " + std::to_string(c) + " " +
                           std::to_string(want.size(1)) + " " + std::to_string(want.size(2))),
              0);
  }
}

TEST(ImageIo, FloatImagesMapToBytesWithRoundHalfUp) {
  auto x = torch::tensor({-1.5f, -1.0f, -0.999f, -0.5f, 0.0f, 0.25f, 0.5f, 0.999f, 1.0f, 2.0f})
               .reshape({1, 1, 2, 5});
  auto u = to_uint8(x);
  for (int64_t i = 0; i < 10; ++i) {
    const double v = std::floor((double(x.view(-1)[i].item<float>()) + 1.0) * 127.5 + 0.5);
    EXPECT_EQ(u.view(-1)[i].item<uint8_t>(), uint8_t(std::min(255.0, std::max(0.0, v)))) << i;
  }
  // Float grids go through the same mapping.
  const auto dir = test::fresh_dir("floatgrid");
  save_png_grid(x.expand({3, 1, 2, 5}), dir + "/f.png", 3, 0);
  auto got = load_png(dir + "/f.png");
  EXPECT_TRUE(torch::equal(got.narrow(2, 0, 5), u[0]));
}

TEST(ImageIo, BadPngGivesDataErrorNamingTheFile) {
  const auto dir = test::fresh_dir("badpng");
  EXPECT_THROW(load_png(dir + "/missing.png"), DataError);
  std::ofstream(dir + "/text.png") << "not a png at all";
  try {
    load_png(dir + "/text.png");
    FAIL() << "no error";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/text.png"), std::string::npos);
  }
  // A valid PNG cut in half.
  save_png(torch::randint(0, 256, {3, 40, 40}, torch::kUInt8), dir + "/full.png");
  std::ifstream in(dir + "/full.png", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(dir + "/cut.png", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  EXPECT_THROW(load_png(dir + "/cut.png"), DataError);
  EXPECT_THROW(load_image(dir + "/cut.png"), DataError);
  EXPECT_THROW(save_png(torch::zeros({2, 4, 4}, torch::kUInt8), dir + "/two.png"), DataError);
}

TEST(ImageOps, CropAndResizeMatchPilExactly) {
  const auto dir = test::fresh_dir("resize");
  torch::manual_seed(2);
  struct Case { int64_t c, h, w, size; };
  for (auto k : {Case{3, 37, 50, 16}, Case{3, 64, 41, 32}, Case{3, 33, 33, 64}, Case{3, 300, 203, 128},
                 Case{1, 28, 28, 32}, Case{1, 28, 28, 20}}) {
    auto img = torch::randint(0, 256, {k.c, k.h, k.w}, torch::kUInt8);
    const std::string in = dir + "/in.raw", out = dir + "/out.raw";
    test::write_raw(in, img);
    ASSERT_EQ(test::oracle("pil-resize " + in + " " + std::to_string(k.c) + " " + std::to_string(k.h) + " " +
                           std::to_string(k.w) + " " + std::to_string(k.size) + " " + out),
              0);
    auto want = test::read_raw(out, {k.c, k.size, k.size}, torch::kUInt8);
    auto src = k.c == 3 ? center_crop_square(img) : img;
    auto got = resize_bilinear_pil(src, k.size, k.size);
    EXPECT_TRUE(torch::equal(got, want)) << k.c << "x" << k.h << "x" << k.w << " -> " << k.size << ": "
                                         << (got.to(torch::kInt) - want.to(torch::kInt)).abs().max().item<int>();
  }
}

TEST(ImageOps, PadCentresOnBackgroundAndChannelsConvert) {
  auto img = torch::randint(1, 256, {1, 28, 28}, torch::kUInt8);
  auto p = pad_to_square(img, 32, 0);
  EXPECT_TRUE(torch::equal(p.narrow(1, 2, 28).narrow(2, 2, 28), img));
  EXPECT_EQ(p.sum().item<int64_t>(), img.sum().item<int64_t>());  // the border is all zero
  auto rgb = convert_channels(img, 3);
  EXPECT_TRUE(torch::equal(rgb[2], img[0]));
  auto px = torch::tensor({10, 200, 30}, torch::kUInt8).reshape({3, 1, 1});
  // PIL convert("L"): (R*19595 + G*38470 + B*7471 + 0x8000) >> 16.
  EXPECT_EQ(convert_channels(px, 1).item<uint8_t>(), (10 * 19595 + 200 * 38470 + 30 * 7471 + 0x8000) >> 16);
}

}  // namespace
}  // namespace hamgan

namespace hamgan {
namespace {

// A PNG of only a header claiming width x height (no image data), as a fuzzer or a damaged download gives.
std::string png_header_only(uint32_t width, uint32_t height) {
  const auto be = [](uint32_t v) { return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; };
  const std::string ihdr = "IHDR" + be(width) + be(height) + std::string{8, 2, 0, 0, 0};  // 8-bit RGB
  const uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(ihdr.data()), static_cast<uInt>(ihdr.size()));
  const auto empty_chunk = [&](const std::string& type) {
    return be(0) + type + be(crc32(0, reinterpret_cast<const Bytef*>(type.data()), 4));
  };
  return std::string("\x89PNG\r\n\x1a\n", 8) + be(13) + ihdr + be(crc) + empty_chunk("IDAT") + empty_chunk("IEND");
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(ImageIo, AnAbsurdPngHeaderIsRefusedBeforeAllocating) {
  const std::string path = test::scratch_dir("data", "png_bomb") + "/bomb.png";
  std::ofstream(path, std::ios::binary) << png_header_only(16000, 16000);
  const long before = peak_rss_kib();
  try {
    load_png(path);
    FAIL() << "decoded a 16000x16000 header without data";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("16000x16000 is over the"), std::string::npos) << e.what();
  }
  EXPECT_LT(peak_rss_kib() - before, 100 * 1024) << "KiB allocated for a refused image";  // was ~1.1 GB
}

}  // namespace
}  // namespace hamgan
