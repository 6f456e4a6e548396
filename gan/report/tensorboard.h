#pragma once
// A dependency-free TensorBoard event-file writer (docs/training.md, "TensorBoard event files"): scalar
// and PNG image summaries, hand-encoded in protobuf wire format, framed as
// TFRecords (u64 length, masked CRC32C of it, payload, masked CRC32C of it).
#include <cstdint>
#include <fstream>
#include <string>

namespace hamgan {

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), continuing from `crc`.
uint32_t crc32c(const void* data, size_t n, uint32_t crc = 0);
// TFRecord's masking: ((crc >> 15) | (crc << 17)) + 0xA282EAD8.
uint32_t masked_crc32c(const void* data, size_t n);

// Serialized tensorflow.Event messages (exposed for tests).
std::string encode_file_version_event(double wall_time, const std::string& version);
std::string encode_scalar_event(double wall_time, int64_t step, const std::string& tag, float value);
// A scalar DT_STRING tensor tagged for TensorBoard's text plugin.
std::string encode_text_event(double wall_time, int64_t step, const std::string& tag, const std::string& text);
// colorspace follows the number of channels: 1 grayscale, 3 RGB, 4 RGBA.
std::string encode_image_event(double wall_time, int64_t step, const std::string& tag, const std::string& png_bytes,
                               int64_t height, int64_t width, int64_t channels);
// One TFRecord around `payload`.
std::string frame_record(const std::string& payload);

class TensorBoardWriter {
 public:
  // Opens a new `events.out.tfevents.<unix time>.<host>` file in `dir` (created if missing).
  explicit TensorBoardWriter(const std::string& dir);
  void add_scalar(const std::string& tag, double value, int64_t step);
  void add_text(const std::string& tag, const std::string& text, int64_t step);  // the Text tab
  void add_image(const std::string& tag, const std::string& png_bytes, int64_t height, int64_t width,
                 int64_t channels, int64_t step);
  void flush();
  const std::string& path() const { return path_; }

 private:
  void write(const std::string& payload);
  std::string path_;
  std::ofstream out_;
};

}  // namespace hamgan
