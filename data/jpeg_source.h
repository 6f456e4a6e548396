#pragma once
// A libjpeg data source on a stdio stream that reads 64 KiB at a time.
// libjpeg's own (jpeg_stdio_src) reads 4 KiB, and libjpeg-turbo takes its
// fast Huffman path only while several KiB are buffered, so most of each
// small buffer is decoded on the slow path. The bytes decoded are the same.
#include <cstdio>
// jpeglib.h needs FILE declared first.
#include <jpeglib.h>

namespace hamgan {

struct JpegBlockSource {
  jpeg_source_mgr pub;
  std::FILE* file = nullptr;
  bool start_of_file = true;
  JOCTET buffer[1 << 16];
};

// Points `cinfo` at `source` (which must outlive the decompressor) reading
// `file`. As with jpeg_stdio_src, an empty file is an error and an early end a
// JWRN_JPEG_EOF warning followed by a fake end-of-image marker.
void jpeg_block_src(j_decompress_ptr cinfo, JpegBlockSource* source, std::FILE* file);

}  // namespace hamgan
