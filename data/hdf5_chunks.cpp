#include "data/hdf5_chunks.h"

#include <liblzf/lzf.h>
#include <zlib.h>

#include <cstring>

#include "core/errors.h"
#include "data/hdf5_common.h"
#include "data/hdf5_lzf.h"

namespace hamgan::hdf5 {
namespace {

// "images a..b (chunk k" as the per-image reader says it, so a message names the pixels lost.
std::string rows_of(int64_t k, int64_t rows, int64_t count) {
  return "images " + std::to_string(k * rows) + ".." + std::to_string(k * rows + count - 1) + " (chunk " +
         std::to_string(k);
}

constexpr int kNoOp = -1;  // a filter that leaves uint8 data as it is

// Undoes one decompressing filter into `out` (exactly `bytes` long); false
// when the input does not decode to a whole chunk.
bool decompress(int filter, const std::vector<uint8_t>& in, uint8_t* out, uint64_t bytes) {
  count_chunk_decompression();
  if (filter == kLzfFilterId) return lzf_decompress(in.data(), unsigned(in.size()), out, unsigned(bytes)) == bytes;
  uLongf got = bytes;
  return uncompress(out, &got, in.data(), in.size()) == Z_OK && got == bytes;
}

}  // namespace

ChunkReader::ChunkReader(const H5::DataSet& images, const hsize_t dims[4], std::string path) : path_(std::move(path)) {
  std::memcpy(dims_, dims, sizeof dims_);
  const H5::DSetCreatPropList plist = images.getCreatePlist();
  if (plist.getLayout() != H5D_CHUNKED) return;
  hsize_t chunk[4] = {0, 0, 0, 0};
  if (plist.getChunk(4, chunk) != 4 || chunk[0] == 0) return;
  rows_ = static_cast<int64_t>(chunk[0]);
  chunk_bytes_ = chunk[0] * chunk[1] * chunk[2] * chunk[3];
  direct_ = chunk[1] == dims[1] && chunk[2] == dims[2] && chunk[3] == dims[3];
  for (int i = 0; i < plist.getNfilters() && direct_; ++i) {
    unsigned flags = 0, config = 0, values[8] = {0};
    size_t count = 8;
    char name[64];
    const int id = H5Pget_filter2(plist.getId(), unsigned(i), &flags, &count, values, sizeof name, name, &config);
    // Shuffle with one-byte elements leaves uint8 pixels as they are.
    const bool byte_shuffle = id == H5Z_FILTER_SHUFFLE && count >= 1 && values[0] == 1;
    direct_ = byte_shuffle || id == kLzfFilterId || id == H5Z_FILTER_DEFLATE;
    filters_.push_back(byte_shuffle ? kNoOp : id);
  }
}

void ChunkReader::read(const H5::DataSet& images, int64_t k, int64_t count, uint8_t* out) const {
  if (!direct_) return read_via_hdf5(images, k, count, out);
  const hsize_t offset[4] = {hsize_t(k * rows_), 0, 0, 0};
  hsize_t size = 0;
  quiet_errors();
  if (H5Dget_chunk_storage_size(images.getId(), offset, &size) < 0 || size == 0)
    return read_via_hdf5(images, k, count, out);  // never written: HDF5 supplies the fill value
  // Whole chunks land in `out` directly; the short last one goes through a copy.
  thread_local std::vector<uint8_t> stored, partial;
  const bool whole = uint64_t(count) == uint64_t(rows_);
  if (!whole) partial.resize(chunk_bytes_);
  uint8_t* target = whole ? out : partial.data();
  int decompressing = -1;  // the pipeline's one decompressing filter applied to this chunk
  uint32_t skipped = 0;
  const bool raw = filters_.empty() && size == chunk_bytes_;  // read straight into place
  if (!raw) stored.resize(size);
  if (H5Dread_chunk(images.getId(), H5P_DEFAULT, offset, &skipped, raw ? target : stored.data()) < 0)
    throw DataError(path_ + ": cannot read " + rows_of(k, rows_, count) + "; file truncated or damaged?)");
  if (raw) stored.clear();
  for (size_t i = 0; i < filters_.size(); ++i)
    if (!(skipped & (1u << i)) && filters_[i] != kNoOp) {
      if (decompressing >= 0) return read_via_hdf5(images, k, count, out);  // two compressors: HDF5 decodes
      decompressing = filters_[i];
    }
  if (raw) {
  } else if (decompressing < 0) {
    if (stored.size() != chunk_bytes_)
      throw DataError(path_ + ": cannot read " + rows_of(k, rows_, count) + " holds " + std::to_string(stored.size()) +
                      " bytes, not " + std::to_string(chunk_bytes_) + "; file damaged)");
    std::memcpy(target, stored.data(), chunk_bytes_);
  } else if (!decompress(decompressing, stored, target, chunk_bytes_)) {
    throw DataError(path_ + ": cannot read " + rows_of(k, rows_, count) + " does not decompress to " +
                    std::to_string(chunk_bytes_) + " bytes; file damaged)");
  }
  if (!whole) std::memcpy(out, partial.data(), count * dims_[1] * dims_[2] * dims_[3]);
}

void ChunkReader::read_via_hdf5(const H5::DataSet& images, int64_t k, int64_t count, uint8_t* out) const {
  quiet_errors();
  try {
    H5::DataSpace fspace = images.getSpace();
    hsize_t start[4] = {hsize_t(k * rows_), 0, 0, 0}, size[4] = {hsize_t(count), dims_[1], dims_[2], dims_[3]};
    fspace.selectHyperslab(H5S_SELECT_SET, size, start);
    H5::DataSpace mspace(4, size);
    images.read(out, H5::PredType::NATIVE_UINT8, mspace, fspace);
  } catch (const H5::Exception& e) {
    throw DataError(path_ + ": cannot read " + rows_of(k, rows_, count) + ", " + detail(e) +
                    "; file truncated or damaged?)");
  }
}

}  // namespace hamgan::hdf5
