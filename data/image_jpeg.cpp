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
#include <vector>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "data/image_io.h"
#include "data/image_limits.h"

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

bool read_jpeg_file(FILE* fp, std::vector<uint8_t>* out, JpegImage* img, JpegError* err) {
  jpeg_decompress_struct cinfo;
  cinfo.err = jpeg_std_error(&err->mgr);
  err->mgr.error_exit = on_jpeg_error;
  err->mgr.emit_message = on_jpeg_warning;
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, fp);
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
  img->channels = cinfo.output_components;
  const size_t stride = size_t(img->width) * img->channels;
  out->resize(stride * img->height);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out->data() + size_t(cinfo.output_scanline) * stride;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

}  // namespace

torch::Tensor load_jpeg(const std::string& path) {
  FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) throw DataError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::vector<uint8_t> pixels;
  JpegImage img;
  JpegError err;
  bool ok = false;
  try {
    ok = read_jpeg_file(fp, &pixels, &img, &err);
  } catch (const std::bad_alloc&) {
    std::snprintf(err.message, sizeof err.message, "image too large");
  }
  std::fclose(fp);
  if (!ok && img.refused) throw DataError(path + ": " + err.message);
  if (!ok) throw DataError(path + ": not a readable JPEG (" + err.message + ")");
  const int64_t h = img.height, w = img.width;
  if (img.cmyk) {
    // CMYK → RGB as R = (255 − C)(255 − K)/255; Adobe files store the channels
    // inverted, so there R = C·K/255. (PIL does the same for inverted CMYK.)
    std::vector<uint8_t> rgb(size_t(h * w * 3));
    for (int64_t i = 0; i < h * w; ++i) {
      int k = pixels[4 * i + 3];
      if (!img.adobe) k = 255 - k;
      for (int ch = 0; ch < 3; ++ch) {
        int v = pixels[4 * i + ch];
        if (!img.adobe) v = 255 - v;
        rgb[3 * i + ch] = uint8_t((v * k + 127) / 255);
      }
    }
    pixels.swap(rgb);
    img.channels = 3;
  }
  auto hwc = torch::from_blob(pixels.data(), {h, w, int64_t(img.channels)}, torch::kUInt8);
  // clone, not contiguous(): with C = 1 the permuted view already counts as
  // contiguous and would keep pointing into `pixels`, freed on return.
  return hwc.permute({2, 0, 1}).clone(at::MemoryFormat::Contiguous);  // (H, W, C) → (C, H, W)
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
