#pragma once
// Where `hamgan prepare` puts the images it converts: a BigGAN-layout HDF5
// file (data/hdf5_writer.h) or a StyleGAN/EDM dataset_tool ZIP (data/zip_writer.h).
#include <cstdint>
#include <memory>
#include <string>

namespace hamgan {

class ImageSink {
 public:
  virtual ~ImageSink() = default;  // before finish(): abandons an incomplete file
  // Appends n images ((n, C, H, W) uint8 bytes) and their labels, in order.
  virtual void append(const uint8_t* images, const int64_t* labels, int64_t n) = 0;
  // Completes and closes the file.
  virtual void finish(int64_t num_classes) = 0;
  virtual int64_t count() const = 0;
};

// Which file `hamgan prepare` writes (PrepareConfig's fields of the same names).
struct SinkSpec {
  std::string format = "auto";       // auto: zip for an output ending in .zip, else hdf5
  std::string output;                // the final path (names the format)
  std::string compression = "none";  // HDF5 only: none | gzip | lzf
};

// "hdf5" or "zip". ConfigError for an output whose name says the other format,
// or HDF5 compression asked of a ZIP.
std::string output_format(const SinkSpec& spec);

// Creates the writer for the spec's format at `write_path` (the temporary file
// write_atomically gives).
std::unique_ptr<ImageSink> open_image_sink(const SinkSpec& spec, const std::string& write_path, int64_t channels,
                                           int64_t height, int64_t width, int64_t expected_images);

}  // namespace hamgan
