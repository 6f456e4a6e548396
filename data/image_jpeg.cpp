// JPEG decoding and encoding through the libjpeg API (libjpeg-turbo). libjpeg's default
// error handler calls exit(); ours longjmps back and the message becomes a
// DataError naming the file.
#include <cstdio>
// jpeglib.h needs FILE declared first.
#include <jpeglib.h>
#include <jerror.h>

#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "data/image_io.h"
#include "data/image_limits.h"
#include "data/jpeg_source.h"

namespace hamgan {
namespace {

struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[512] = "";  // at least JMSG_LENGTH_MAX; our size-limit message is longer
};

void on_jpeg_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}
// A truncated file only draws a warning from libjpeg and decodes padded with
// grey: treat that one as an error. Other corrupt-data warnings (extraneous
// bytes before a marker, seen in real ImageNet files) are tolerated like PIL does.
void on_jpeg_warning(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) on_jpeg_error(cinfo);
}

struct JpegImage {
  JDIMENSION width = 0, height = 0;
  int channels = 0;
  bool cmyk = false, adobe = false;
  bool refused = false;  // over the size limits; err->message says why
};

// CMYK → RGB as R = (255 − C)(255 − K)/255; Adobe files store the channels
// inverted, so there R = C·K/255. (PIL does the same for inverted CMYK.)
void cmyk_row_to_rgb(const uint8_t* cmyk, size_t width, bool adobe, uint8_t* rgb) {
  for (size_t x = 0; x < width; ++x) {
    const int k = adobe ? cmyk[4 * x + 3] : 255 - cmyk[4 * x + 3];
    for (int ch = 0; ch < 3; ++ch) {
      const int v = adobe ? cmyk[4 * x + ch] : 255 - cmyk[4 * x + ch];
      rgb[3 * x + ch] = uint8_t((v * k + 127) / 255);
    }
  }
}

// Decodes into `out` as libjpeg gives it, interleaved (H, W, C), C = 1 or 3
// (CMYK rows are converted through `row`). The buffers and the source belong
// to the caller, so a longjmp leaves nothing to destroy in this frame.
bool read_jpeg_file(FILE* fp, JpegBlockSource* source, std::unique_ptr<uint8_t[]>* out, std::vector<uint8_t>* row,
                    JpegImage* img, JpegError* err) {
  jpeg_decompress_struct cinfo;
  cinfo.err = jpeg_std_error(&err->mgr);
  err->mgr.error_exit = on_jpeg_error;
  err->mgr.emit_message = on_jpeg_warning;
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_block_src(&cinfo, source, fp);
  jpeg_read_header(&cinfo, TRUE);
  {  // scoped so that no string is alive across the longjmp
    const std::string problem = image_size_problem(cinfo.image_width, cinfo.image_height);
    std::snprintf(err->message, sizeof err->message, "%s", problem.c_str());
    img->refused = !problem.empty();
  }
  if (img->refused) std::longjmp(err->jump, 1);
  // Gray stays gray; YCbCr/RGB become RGB; CMYK/YCCK come out as CMYK.
  img->cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  img->adobe = cinfo.saw_Adobe_marker;
  if (img->cmyk)
    cinfo.out_color_space = JCS_CMYK;
  else if (cinfo.jpeg_color_space != JCS_GRAYSCALE)
    cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  img->width = cinfo.output_width;
  img->height = cinfo.output_height;
  img->channels = cinfo.output_components == 1 ? 1 : 3;
  const size_t stride = size_t(img->width) * img->channels;
  out->reset(new uint8_t[stride * img->height]);  // not zeroed: every byte is decoded
  if (img->cmyk) row->resize(size_t(img->width) * 4);
  while (cinfo.output_scanline < cinfo.output_height) {
    uint8_t* dst = out->get() + size_t(cinfo.output_scanline) * stride;
    JSAMPROW rows = img->cmyk ? row->data() : dst;
    jpeg_read_scanlines(&cinfo, &rows, 1);
    if (img->cmyk) cmyk_row_to_rgb(row->data(), img->width, img->adobe, dst);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

}  // namespace

torch::Tensor load_jpeg(const std::string& path) {
  FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) throw DataError(path + ": cannot open (" + std::strerror(errno) + ")");
  try {
    auto image = read_jpeg(fp, path);
    std::fclose(fp);
    return image;
  } catch (...) {
    std::fclose(fp);
    throw;
  }
}

torch::Tensor read_jpeg(FILE* fp, const std::string& name) {
  std::unique_ptr<uint8_t[]> pixels;
  std::vector<uint8_t> row;
  auto source = std::make_unique<JpegBlockSource>();
  JpegImage img;
  JpegError err;
  bool ok = false;
  try {
    ok = read_jpeg_file(fp, source.get(), &pixels, &row, &img, &err);
  } catch (const std::bad_alloc&) {
    std::snprintf(err.message, sizeof err.message, "image too large");
  }
  if (!ok && img.refused) throw DataError(name + ": " + err.message);
  if (!ok) throw DataError(name + ": not a readable JPEG (" + err.message + ")");
  const int64_t c = img.channels, h = img.height, w = img.width;
  // (C, H, W) as a view of the interleaved bytes, which it takes over: no
  // copy, and the resize reads the layout as it is (data/image_ops.cpp);
  // .contiguous() gives planes where they are needed.
  auto tensor = torch::from_blob(
      pixels.get(), {c, h, w}, {1, w * c, c}, [](void* p) { delete[] static_cast<uint8_t*>(p); }, torch::kUInt8);
  pixels.release();
  return tensor;
}

void save_jpeg(const torch::Tensor& image, const std::string& path, int quality) {
  if (image.dim() != 3 || (image.size(0) != 1 && image.size(0) != 3) || image.size(1) < 1 || image.size(2) < 1)
    throw DataError(path + ": expected an image of shape (1|3, H, W), got " + std::string(c10::str(image.sizes())));
  if (image.size(1) > 65500 || image.size(2) > 65500)  // the JPEG format's own limit
    throw DataError(path + ": " + std::string(c10::str(image.sizes())) +
                    " is over JPEG's 65500 pixels per side; write a PNG instead");
  if (quality < 1 || quality > 100)
    throw ConfigError("jpeg quality: must be between 1 and 100, got " + std::to_string(quality));
  const torch::Tensor hwc = to_uint8(image.detach().cpu()).permute({1, 2, 0}).contiguous();
  const int channels = static_cast<int>(image.size(0));
  jpeg_compress_struct cinfo;
  JpegError err;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = on_jpeg_error;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    std::free(buffer);
    throw DataError(path + ": cannot encode JPEG (" + err.message + ")");
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = static_cast<JDIMENSION>(image.size(2));
  cinfo.image_height = static_cast<JDIMENSION>(image.size(1));
  cinfo.input_components = channels;
  cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  const uint8_t* base = hwc.data_ptr<uint8_t>();
  const size_t stride = size_t(cinfo.image_width) * channels;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(base + size_t(cinfo.next_scanline) * stride);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  const std::string bytes(reinterpret_cast<const char*>(buffer), size);
  std::free(buffer);
  write_atomically(path, [&](const std::string& tmp) {
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw DataError(path + ": cannot create (" + std::strerror(errno) + ")");
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    if ((std::fclose(f) != 0) || !ok) throw DataError(path + ": cannot write (disk full or no permission?)");
  });
}

}  // namespace hamgan
