// PNG write/read through libpng. libpng reports errors through longjmp, so
// every libpng call sits in a small function whose frame holds no C++ object
// with a destructor; errors come back as a message and become DataError.
#include "data/image_io.h"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "data/image_limits.h"

namespace hamgan {
namespace {

struct PngError {
  char message[256] = "";
};

void on_png_error(png_structp png, png_const_charp msg) {
  auto* err = static_cast<PngError*>(png_get_error_ptr(png));
  std::snprintf(err->message, sizeof err->message, "%s", msg);
  png_longjmp(png, 1);
}
void on_png_warning(png_structp, png_const_charp) {}

// Writes rows of `channels` (1 or 3) interleaved 8-bit samples. Returns false
// and fills err on failure.
bool write_png_rows(FILE* fp, const uint8_t* pixels, int width, int height, int channels,
                    PngError* err) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, err, on_png_error, on_png_warning);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, fp);
  png_set_IHDR(png, info, width, height, 8, channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < height; ++y)
    png_write_row(png, const_cast<png_bytep>(pixels + size_t(y) * width * channels));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

// Decodes to 8-bit gray or RGB without alpha; pixels go into `out`, which the
// caller owns so that a longjmp leaves nothing to destroy in this frame.
struct PngImage {
  png_uint_32 width = 0, height = 0;
  int channels = 0;
};

bool read_png_file(FILE* fp, std::vector<uint8_t>* out, PngImage* img, PngError* err) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, err, on_png_error, on_png_warning);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  png_bytep* volatile rows = nullptr;  // volatile: read after longjmp
  if (!info || setjmp(png_jmpbuf(png))) {
    std::free(rows);
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_init_io(png, fp);
  png_set_user_limits(png, kMaxImageSide, kMaxImageSide);  // load_png checked IHDR already
  png_read_info(png, info);
  const int color = png_get_color_type(png, info);
  if (png_get_bit_depth(png, info) == 16) png_set_strip_16(png);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8)
    png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  png_set_strip_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  img->width = png_get_image_width(png, info);
  img->height = png_get_image_height(png, info);
  img->channels = png_get_channels(png, info);
  const size_t rowbytes = png_get_rowbytes(png, info);
  if (rowbytes != size_t(img->width) * img->channels) png_error(png, "unexpected row layout");
  out->resize(rowbytes * img->height);  // may throw bad_alloc: limits above keep it sane
  rows = static_cast<png_bytep*>(std::malloc(sizeof(png_bytep) * img->height));
  if (!rows) png_error(png, "out of memory");
  for (png_uint_32 y = 0; y < img->height; ++y) rows[y] = out->data() + y * rowbytes;
  png_read_image(png, rows);
  png_read_end(png, nullptr);
  std::free(rows);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

// (C, H, W) uint8 → contiguous (H, W, C) bytes.
torch::Tensor to_hwc_bytes(const torch::Tensor& chw) {
  return chw.permute({1, 2, 0}).contiguous();
}

}  // namespace

torch::Tensor to_uint8(const torch::Tensor& images) {
  if (images.scalar_type() == torch::kUInt8) return images;
  // [-1, 1] → [0, 255]: v = (x + 1) · 127.5, round half up.
  auto v = (images.to(torch::kFloat64) + 1.0) * 127.5;
  return torch::floor(v + 0.5).clamp(0, 255).to(torch::kUInt8);
}

torch::Tensor make_grid(const torch::Tensor& images, int64_t nrow, int64_t padding, uint8_t pad_value) {
  if (images.dim() != 4 || (images.size(1) != 1 && images.size(1) != 3) || images.size(0) < 1)
    throw DataError("image grid: expected images of shape (N, 1|3, H, W) with N >= 1, got " +
                    std::string(c10::str(images.sizes())));
  if (nrow < 1 || padding < 0) throw ConfigError("image grid: nrow must be >= 1 and padding >= 0");
  const auto u8 = to_uint8(images.detach().cpu());
  const int64_t n = u8.size(0), c = u8.size(1), h = u8.size(2), w = u8.size(3);
  const int64_t cols = std::min(nrow, n), rows = (n + cols - 1) / cols;
  auto grid = torch::full({c, rows * (h + padding) + padding, cols * (w + padding) + padding},
                          static_cast<int64_t>(pad_value), torch::kUInt8);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t y = padding + (k / cols) * (h + padding), x = padding + (k % cols) * (w + padding);
    grid.narrow(1, y, h).narrow(2, x, w).copy_(u8[k]);
  }
  return grid;
}

void save_png(const torch::Tensor& image, const std::string& path) {
  if (image.dim() != 3 || (image.size(0) != 1 && image.size(0) != 3))
    throw DataError(path + ": expected an image of shape (1|3, H, W), got " +
                    std::string(c10::str(image.sizes())));
  const auto hwc = to_hwc_bytes(to_uint8(image.detach().cpu()));
  const int c = int(image.size(0)), h = int(image.size(1)), w = int(image.size(2));
  write_atomically(path, [&](const std::string& tmp) {
    FILE* fp = std::fopen(tmp.c_str(), "wb");
    if (!fp) throw DataError(path + ": cannot open for writing (" + std::strerror(errno) + ")");
    PngError err;
    const bool ok = write_png_rows(fp, hwc.data_ptr<uint8_t>(), w, h, c, &err);
    const bool closed = std::fclose(fp) == 0;
    if (!ok) throw DataError(path + ": PNG write failed (" + err.message + ")");
    if (!closed) throw DataError(path + ": write failed (disk full?)");
  });
}

void save_png_grid(const torch::Tensor& images, const std::string& path, int64_t nrow,
                   int64_t padding, uint8_t pad_value) {
  save_png(make_grid(images, nrow, padding, pad_value), path);
}

namespace {

// Width and height from the IHDR chunk, which the PNG format puts first.
bool png_header_size(FILE* fp, uint64_t* width, uint64_t* height) {
  unsigned char b[24];
  const bool ok = std::fread(b, 1, sizeof b, fp) == sizeof b && std::memcmp(b + 12, "IHDR", 4) == 0;
  std::rewind(fp);
  if (!ok) return false;
  const auto be32 = [](const unsigned char* p) { return uint64_t(p[0]) << 24 | p[1] << 16 | p[2] << 8 | p[3]; };
  *width = be32(b + 16);
  *height = be32(b + 20);
  return true;
}

}  // namespace

torch::Tensor load_png(const std::string& path) {
  FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) throw DataError(path + ": cannot open (" + std::strerror(errno) + ")");
  try {
    auto image = read_png(fp, path);
    std::fclose(fp);
    return image;
  } catch (...) {
    std::fclose(fp);
    throw;
  }
}

torch::Tensor read_png(FILE* fp, const std::string& name) {
  uint64_t width = 0, height = 0;
  if (png_header_size(fp, &width, &height)) {
    const std::string problem = image_size_problem(width, height);
    if (!problem.empty()) throw DataError(name + ": " + problem);
  }
  std::vector<uint8_t> pixels;
  PngImage img;
  PngError err;
  bool ok = false;
  try {
    ok = read_png_file(fp, &pixels, &img, &err);
  } catch (const std::bad_alloc&) {
    std::snprintf(err.message, sizeof err.message, "image too large");
  }
  if (!ok) throw DataError(name + ": not a readable PNG (" + err.message + ")");
  auto hwc = torch::from_blob(pixels.data(), {int64_t(img.height), int64_t(img.width), img.channels},
                              torch::kUInt8);
  // clone, not contiguous(): with C = 1 the permuted view already counts as
  // contiguous and would keep pointing into `pixels`, freed on return.
  return hwc.permute({2, 0, 1}).clone(at::MemoryFormat::Contiguous);  // (H, W, C) → (C, H, W)
}

bool has_image_signature(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char sig[8] = {0};
  if (!in.read(reinterpret_cast<char*>(sig), 8)) return false;
  static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (std::memcmp(sig, png_sig, 8) == 0) return true;
  return sig[0] == 0xFF && sig[1] == 0xD8 && sig[2] == 0xFF;  // JPEG SOI + marker
}

torch::Tensor load_image(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path + ": cannot open (" + std::strerror(errno) + ")");
  unsigned char sig[3] = {0};
  in.read(reinterpret_cast<char*>(sig), 3);
  if (sig[0] == 0x89 && sig[1] == 'P' && sig[2] == 'N') return load_png(path);
  if (sig[0] == 0xFF && sig[1] == 0xD8) return load_jpeg(path);
  throw DataError(path + ": neither PNG nor JPEG (unknown file signature)");
}

}  // namespace hamgan
