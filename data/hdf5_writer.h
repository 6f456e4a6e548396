#pragma once
// Writes BigGAN-PyTorch-layout HDF5 files (see data/hdf5_common.h): `imgs`
// uint8 (N, C, H, W) chunked (500, C, H, W) and grown along axis 0, `labels`
// int64 (N) chunked (500), `imgs` attribute layout = "NCHW", root attribute
// num_classes. Files load unchanged in h5py and BigGAN-PyTorch.
#include <cstdint>
#include <memory>
#include <string>

namespace hamgan {

class Hdf5Writer {
 public:
  // Creates (truncates) `path`. Throws DataError on failure (a failed write
  // leaves the file closed and incomplete, for the caller to remove), and,
  // for uncompressed output, before creating anything when `expected_images`
  // (if given) cannot fit in the free space there.
  // `compression`: "none", "gzip" (deflate 4, as h5py's default) or "lzf";
  // compressed datasets carry Fletcher-32 checksums too (h5py's fletcher32=True).
  Hdf5Writer(const std::string& path, int64_t channels, int64_t height, int64_t width, int64_t expected_images = 0,
             const std::string& compression = "none");
  // In memory only (`path` names it in messages): file_image() after finish()
  // gives the bytes, for callers that write them with their own error handling.
  static Hdf5Writer in_memory(const std::string& path, int64_t channels, int64_t height, int64_t width);
  Hdf5Writer(Hdf5Writer&&) noexcept;
  // Before finish(), abandons the file: closed, incomplete, for the caller to remove.
  ~Hdf5Writer();
  // Appends n images ((n, C, H, W) uint8 bytes) and their labels.
  void append(const uint8_t* images, const int64_t* labels, int64_t n);
  // Writes the num_classes attribute and closes the file (flushes everything).
  void finish(int64_t num_classes);
  int64_t count() const;
  const std::string& file_image() const;  // in_memory writers, after finish()

 struct State;  // public for the file's own error handling only

 private:
  std::unique_ptr<State> s_;
};

}  // namespace hamgan
