// In-memory image decoding goes through the file decoders on an fmemopen
// stream, so members of an archive decode exactly like files. PNG encoding
// writes through libpng's callbacks; like data/image_io.cpp, the frame that
// calls setjmp holds no C++ object with a destructor.
#include "data/image_bytes.h"

#include <png.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "core/errors.h"
#include "data/image_io.h"

namespace hamgan {
namespace {

struct PngSink {
  std::string* bytes;
  char message[256];
};

void on_error(png_structp png, png_const_charp msg) {
  auto* sink = static_cast<PngSink*>(png_get_error_ptr(png));
  std::snprintf(sink->message, sizeof sink->message, "%s", msg);
  png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}

void on_write(png_structp png, png_bytep data, png_size_t n) {
  auto* sink = static_cast<PngSink*>(png_get_io_ptr(png));
  bool ok = true;
  try {
    sink->bytes->append(reinterpret_cast<const char*>(data), n);
  } catch (const std::bad_alloc&) {
    ok = false;
  }
  if (!ok) png_error(png, "out of memory");
}
void on_flush(png_structp) {}

// `hwc`: height rows of width·channels interleaved samples.
bool write_png(PngSink* sink, const uint8_t* hwc, int width, int height, int channels, int level) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, sink, on_error, on_warning);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, sink, on_write, on_flush);
  png_set_compression_level(png, level);
  // Stored deflate gains nothing from filtering; unfiltered rows also decode fastest.
  if (level == 0) png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  png_set_IHDR(png, info, width, height, 8, channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < height; ++y)
    png_write_row(png, const_cast<png_bytep>(hwc + size_t(y) * width * channels));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

torch::Tensor decode_image_bytes(const void* data, size_t size, const std::string& name) {
  static const unsigned char png_sig[4] = {0x89, 'P', 'N', 'G'};
  const auto* b = static_cast<const unsigned char*>(data);
  const bool png = size >= 8 && std::memcmp(b, png_sig, 4) == 0;
  const bool jpeg = size >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF;
  if (!png && !jpeg) throw DataError(name + ": neither PNG nor JPEG (unknown signature)");
  FILE* fp = fmemopen(const_cast<void*>(data), size, "rb");
  if (!fp) throw DataError(name + ": cannot read from memory (" + std::strerror(errno) + ")");
  try {
    auto image = png ? read_png(fp, name) : read_jpeg(fp, name);
    std::fclose(fp);
    return image;
  } catch (...) {
    std::fclose(fp);
    throw;
  }
}

std::string encode_png_bytes(const torch::Tensor& image, int level) {
  TORCH_CHECK(image.dim() == 3 && (image.size(0) == 1 || image.size(0) == 3) && image.scalar_type() == torch::kUInt8,
              "encode_png_bytes: expected a (1|3, H, W) uint8 image, got ", image.sizes());
  TORCH_CHECK(level >= 0 && level <= 9, "encode_png_bytes: zlib level must be 0..9, got ", level);
  const auto hwc = image.permute({1, 2, 0}).contiguous();
  std::string bytes;
  PngSink sink{&bytes, ""};
  if (!write_png(&sink, hwc.data_ptr<uint8_t>(), int(image.size(2)), int(image.size(1)), int(image.size(0)), level))
    throw DataError(std::string("PNG encoding failed (") + sink.message + ")");
  return bytes;
}

}  // namespace hamgan
