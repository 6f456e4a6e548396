#pragma once
// Whole-chunk reads of an HDF5 image dataset. A compressed chunk is fetched
// as stored (H5Dread_chunk, under HDF5's global lock, no decoding) and
// decompressed here, outside the lock, so loader threads decode in parallel;
// HDF5's own read would decompress under its lock, one chunk at a time.
// Pipelines of LZF, deflate (gzip) and byte-size shuffle, with or without a
// final Fletcher-32 checksum (verified here as HDF5 would), are decoded here;
// any other filter goes through HDF5's read of the same rows.
#include <H5Cpp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hamgan::hdf5 {

// HDF5's Fletcher-32 (H5_checksum_fletcher32): sums over big-endian 16-bit
// words, an odd last byte as the high byte of a word, both sums folded to 16
// bits; (sum2 << 16) | sum1.
uint32_t fletcher32(const uint8_t* data, size_t bytes);

class ChunkReader {
 public:
  ChunkReader() = default;
  // `dims`: the dataset's 4-D shape. rows() is 0 unless the layout is chunked.
  ChunkReader(const H5::DataSet& images, const hsize_t dims[4], std::string path);
  int64_t rows() const { return rows_; }
  // Rows [k·rows, k·rows + count) of chunk k, in stored order, into `out`.
  // Throws DataError naming the file and the chunk's images when the chunk
  // fails its checksum or does not decode.
  void read(const H5::DataSet& images, int64_t k, int64_t count, uint8_t* out) const;
  // What checks a chunk's bytes as read: "Fletcher-32", "deflate's Adler-32" or "".
  std::string checksum() const { return fletcher_ ? "Fletcher-32" : deflate_ ? "deflate's Adler-32" : ""; }
  // Reads and checks every chunk of a dataset of `n` images, polling for a
  // stop: Dataset::check_integrity's line ("" when nothing can be checked or said).
  std::string check_all(const H5::DataSet& images, int64_t n) const;
  // " in chunk k (images a..b)" for rows [first, first + len) of `n`; "" unless chunked.
  std::string span(int64_t first, int64_t len, int64_t n) const;
  // After HDF5 failed to read rows [first, first + len) of `n`: reads the
  // chunks they lie in and lets the first one's DataError through.
  void throw_chunk_error(const H5::DataSet& images, int64_t first, int64_t len, int64_t n) const;
  // LZF-compressed without Fletcher-32 (h5py's default): damage inside a chunk
  // may decompress to wrong pixels without any error.
  bool unchecked_lzf() const { return lzf_ && !fletcher_; }

 private:
  void read_via_hdf5(const H5::DataSet& images, int64_t k, int64_t count, uint8_t* out) const;
  std::string path_;
  hsize_t dims_[4] = {0, 0, 0, 0};
  int64_t rows_ = 0;
  uint64_t chunk_bytes_ = 0;
  bool direct_ = false;               // whole images per chunk and every filter decodable here
  std::vector<int> filters_;          // pipeline order, as written
  bool fletcher_ = false;             // the pipeline holds Fletcher-32 (last, where direct_)
  bool lzf_ = false, deflate_ = false;
};

}  // namespace hamgan::hdf5
