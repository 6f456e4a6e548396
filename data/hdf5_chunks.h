#pragma once
// Whole-chunk reads of an HDF5 image dataset. A compressed chunk is fetched
// as stored (H5Dread_chunk, under HDF5's global lock, no decoding) and
// decompressed here, outside the lock, so loader threads decode in parallel;
// HDF5's own read would decompress under its lock, one chunk at a time.
// Pipelines of LZF, deflate (gzip) and byte-size shuffle are decoded here;
// any other filter goes through HDF5's read of the same rows.
#include <H5Cpp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hamgan::hdf5 {

class ChunkReader {
 public:
  ChunkReader() = default;
  // `dims`: the dataset's 4-D shape. rows() is 0 unless the layout is chunked.
  ChunkReader(const H5::DataSet& images, const hsize_t dims[4], std::string path);
  int64_t rows() const { return rows_; }
  // Rows [k·rows, k·rows + count) of chunk k, in stored order, into `out`.
  void read(const H5::DataSet& images, int64_t k, int64_t count, uint8_t* out) const;

 private:
  void read_via_hdf5(const H5::DataSet& images, int64_t k, int64_t count, uint8_t* out) const;
  std::string path_;
  hsize_t dims_[4] = {0, 0, 0, 0};
  int64_t rows_ = 0;
  uint64_t chunk_bytes_ = 0;
  bool direct_ = false;               // whole images per chunk and every filter decodable here
  std::vector<int> filters_;          // pipeline order, as written
};

}  // namespace hamgan::hdf5
