#include "data/hdf5_chunks.h"

#include <liblzf/lzf.h>
#include <zlib.h>

#include <cstring>
#include <optional>

#include "core/errors.h"
#include "core/progress.h"
#include "core/stop_signal.h"
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

// Checks and strips the 4 checksum bytes HDF5's Fletcher-32 filter appends
// (little-endian). HDF5 also accepts the checksum with the bytes of each
// 16-bit half swapped, as libraries before 1.6.3 wrote it on little-endian hosts.
bool strip_fletcher32(std::vector<uint8_t>& stored) {
  if (stored.size() < 4) return false;
  const size_t n = stored.size() - 4;
  const uint8_t* c = stored.data() + n;
  const uint32_t want = uint32_t(c[0]) | uint32_t(c[1]) << 8 | uint32_t(c[2]) << 16 | uint32_t(c[3]) << 24;
  const uint32_t got = fletcher32(stored.data(), n);
  const uint32_t swapped = ((got & 0x00ff00ffu) << 8) | ((got >> 8) & 0x00ff00ffu);
  if (want != got && want != swapped) return false;
  stored.resize(n);
  return true;
}

}  // namespace

uint32_t fletcher32(const uint8_t* data, size_t bytes) {
  uint32_t sum1 = 0, sum2 = 0;
  for (size_t words = bytes / 2; words > 0;) {
    size_t block = words > 360 ? 360 : words;  // the most sums that cannot overflow
    words -= block;
    for (; block > 0; --block, data += 2) {
      sum1 += uint32_t(data[0]) << 8 | data[1];
      sum2 += sum1;
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  if (bytes % 2) {
    sum1 += uint32_t(*data) << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  return sum2 << 16 | sum1;
}

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
    // Fletcher-32 sums the filtered bytes: only as the last filter is it the stored chunk's tail.
    const bool last_checksum = id == H5Z_FILTER_FLETCHER32 && i + 1 == plist.getNfilters();
    direct_ = byte_shuffle || last_checksum || id == kLzfFilterId || id == H5Z_FILTER_DEFLATE;
    filters_.push_back(byte_shuffle ? kNoOp : id);
  }
  for (int id : filters_) {
    fletcher_ = fletcher_ || id == H5Z_FILTER_FLETCHER32;
    lzf_ = lzf_ || id == kLzfFilterId;
    deflate_ = deflate_ || id == H5Z_FILTER_DEFLATE;
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
  const size_t last = filters_.empty() ? 0 : filters_.size() - 1;
  const bool checked = !filters_.empty() && filters_[last] == H5Z_FILTER_FLETCHER32 && !(skipped & (1u << last));
  if (checked && !strip_fletcher32(stored))
    throw DataError(path_ + ": " + rows_of(k, rows_, count) +
                    ") fail their Fletcher-32 checksum; the file is damaged: restore it from a good copy or "
                    "re-create it with 'hamgan prepare'");
  for (size_t i = 0; i < filters_.size(); ++i)
    if (!(skipped & (1u << i)) && filters_[i] != kNoOp && filters_[i] != H5Z_FILTER_FLETCHER32) {
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

std::string ChunkReader::check_all(const H5::DataSet& images, int64_t n) const {
  if (rows_ == 0) return "";
  if (unchecked_lzf())
    return "LZF chunks without Fletcher-32 checksums (h5py writes them unless fletcher32=True): damage inside a "
           "chunk cannot be detected; 'hamgan prepare --input " + path_ + " --output COPY.hdf5 --compression lzf' "
           "writes a copy with checksums";
  if (checksum().empty()) return "";
  const int64_t chunks = (n + rows_ - 1) / rows_;
  std::vector<uint8_t> pixels(chunk_bytes_);
  std::optional<ProgressBar> bar;  // for files whose check takes a while (ImageNet: 2,563 chunks)
  if (chunks >= 100) bar.emplace("check", chunks, "chunk");
  for (int64_t k = 0; k < chunks; ++k) {
    throw_if_stop_requested(path_ + ": checking chunks");
    read(images, k, std::min(rows_, n - k * rows_), pixels.data());
    if (bar) bar->advance();
  }
  if (bar) bar->finish();
  return "all " + std::to_string(chunks) + " chunks verified (" + checksum() + ")";
}

std::string ChunkReader::span(int64_t first, int64_t len, int64_t n) const {
  if (rows_ == 0) return "";
  const int64_t a = first / rows_, b = (first + len - 1) / rows_;
  return " in chunk" + (a == b ? " " + std::to_string(a) : "s " + std::to_string(a) + ".." + std::to_string(b)) +
         " (images " + std::to_string(a * rows_) + ".." + std::to_string(std::min(n, (b + 1) * rows_) - 1) + ")";
}

void ChunkReader::throw_chunk_error(const H5::DataSet& images, int64_t first, int64_t len, int64_t n) const {
  if (rows_ == 0 || !direct_) return;
  std::vector<uint8_t> pixels(chunk_bytes_);
  for (int64_t k = first / rows_; k <= (first + len - 1) / rows_; ++k)
    read(images, k, std::min(rows_, n - k * rows_), pixels.data());
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
