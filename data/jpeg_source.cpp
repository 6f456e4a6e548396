#include "data/jpeg_source.h"

#include <jerror.h>

namespace hamgan {
namespace {

JpegBlockSource* source_of(j_decompress_ptr cinfo) { return reinterpret_cast<JpegBlockSource*>(cinfo->src); }

void init_source(j_decompress_ptr cinfo) { source_of(cinfo)->start_of_file = true; }

boolean fill_input_buffer(j_decompress_ptr cinfo) {
  JpegBlockSource* src = source_of(cinfo);
  size_t n = std::fread(src->buffer, 1, sizeof src->buffer, src->file);
  if (n == 0) {
    if (src->start_of_file) ERREXIT(cinfo, JERR_INPUT_EMPTY);
    WARNMS(cinfo, JWRN_JPEG_EOF);
    src->buffer[0] = JOCTET(0xFF);  // a fake EOI marker, as libjpeg's sources insert
    src->buffer[1] = JOCTET(JPEG_EOI);
    n = 2;
  }
  src->pub.next_input_byte = src->buffer;
  src->pub.bytes_in_buffer = n;
  src->start_of_file = false;
  return TRUE;
}

void skip_input_data(j_decompress_ptr cinfo, long num_bytes) {
  jpeg_source_mgr* src = cinfo->src;
  if (num_bytes <= 0) return;
  while (num_bytes > long(src->bytes_in_buffer)) {
    num_bytes -= long(src->bytes_in_buffer);
    (*src->fill_input_buffer)(cinfo);
  }
  src->next_input_byte += size_t(num_bytes);
  src->bytes_in_buffer -= size_t(num_bytes);
}

void term_source(j_decompress_ptr) {}

}  // namespace

void jpeg_block_src(j_decompress_ptr cinfo, JpegBlockSource* source, std::FILE* file) {
  source->file = file;
  source->pub.init_source = init_source;
  source->pub.fill_input_buffer = fill_input_buffer;
  source->pub.skip_input_data = skip_input_data;
  source->pub.resync_to_restart = jpeg_resync_to_restart;
  source->pub.term_source = term_source;
  source->pub.bytes_in_buffer = 0;
  source->pub.next_input_byte = nullptr;
  cinfo->src = &source->pub;
}

}  // namespace hamgan
