#include "gan/report/tensorboard.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "core/errors.h"

namespace hamgan {

static const std::array<uint32_t, 256>& crc_table() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

uint32_t crc32c(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  const auto& t = crc_table();
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = t[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

uint32_t masked_crc32c(const void* data, size_t n) {
  const uint32_t crc = crc32c(data, n);
  return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u;
}

// --- protobuf wire format: tag = (field << 3) | wire type (0 varint, 1 fixed64, 2 bytes, 5 fixed32)
namespace {
void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
template <typename T>
void put_fixed(std::string& out, T v) {  // little-endian (x86/ARM hosts)
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}
void put_bytes(std::string& out, int field, const std::string& bytes) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | 2);
  put_varint(out, bytes.size());
  out += bytes;
}
std::string event_header(double wall_time, int64_t step) {
  std::string e;
  put_varint(e, (1 << 3) | 1);  // Event.wall_time (double)
  put_fixed(e, wall_time);
  put_varint(e, (2 << 3) | 0);  // Event.step (int64)
  put_varint(e, static_cast<uint64_t>(step));
  return e;
}
std::string summary_event(double wall_time, int64_t step, const std::string& value) {
  std::string summary;
  put_bytes(summary, 1, value);  // Summary.value
  std::string e = event_header(wall_time, step);
  put_bytes(e, 5, summary);  // Event.summary
  return e;
}
}  // namespace

std::string encode_file_version_event(double wall_time, const std::string& version) {
  std::string e;
  put_varint(e, (1 << 3) | 1);
  put_fixed(e, wall_time);
  put_bytes(e, 3, version);  // Event.file_version
  return e;
}

std::string encode_scalar_event(double wall_time, int64_t step, const std::string& tag, float value) {
  std::string v;
  put_bytes(v, 1, tag);         // Value.tag
  put_varint(v, (2 << 3) | 5);  // Value.simple_value (float)
  put_fixed(v, value);
  return summary_event(wall_time, step, v);
}

std::string encode_text_event(double wall_time, int64_t step, const std::string& tag, const std::string& text) {
  std::string plugin;
  put_bytes(plugin, 1, "text");  // PluginData.plugin_name
  std::string metadata;
  put_bytes(metadata, 1, plugin);  // SummaryMetadata.plugin_data
  std::string tensor;
  put_varint(tensor, (1 << 3) | 0);  // TensorProto.dtype
  put_varint(tensor, 7);             // DT_STRING
  put_bytes(tensor, 2, "");          // TensorProto.tensor_shape: a scalar
  put_bytes(tensor, 8, text);        // TensorProto.string_val
  std::string v;
  put_bytes(v, 1, tag);
  put_bytes(v, 9, metadata);  // Value.metadata
  put_bytes(v, 8, tensor);    // Value.tensor
  return summary_event(wall_time, step, v);
}

std::string encode_image_event(double wall_time, int64_t step, const std::string& tag, const std::string& png_bytes,
                               int64_t height, int64_t width, int64_t channels) {
  std::string img;
  put_varint(img, (1 << 3) | 0);  // Image.height
  put_varint(img, static_cast<uint64_t>(height));
  put_varint(img, (2 << 3) | 0);  // Image.width
  put_varint(img, static_cast<uint64_t>(width));
  put_varint(img, (3 << 3) | 0);  // Image.colorspace: 1 grayscale, 3 RGB, 4 RGBA
  put_varint(img, static_cast<uint64_t>(channels));
  put_bytes(img, 4, png_bytes);  // Image.encoded_image_string
  std::string v;
  put_bytes(v, 1, tag);
  put_bytes(v, 4, img);  // Value.image
  return summary_event(wall_time, step, v);
}

std::string frame_record(const std::string& payload) {
  std::string r;
  const uint64_t len = payload.size();
  put_fixed(r, len);
  put_fixed(r, masked_crc32c(r.data(), 8));
  r += payload;
  put_fixed(r, masked_crc32c(payload.data(), payload.size()));
  return r;
}

static double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

TensorBoardWriter::TensorBoardWriter(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  char host[256] = "localhost";
  ::gethostname(host, sizeof(host) - 1);
  const auto secs = static_cast<int64_t>(now_seconds());
  path_ = (std::filesystem::path(dir) / ("events.out.tfevents." + std::to_string(secs) + "." + host)).string();
  // Two writers in the same second (resume right after a stop) must not share a file.
  for (int k = 1; std::filesystem::exists(path_); ++k)
    path_ = (std::filesystem::path(dir) /
             ("events.out.tfevents." + std::to_string(secs) + "." + host + "." + std::to_string(k))).string();
  out_.open(path_, std::ios::binary);
  if (!out_) throw Error(path_ + ": cannot create TensorBoard event file");
  write(encode_file_version_event(now_seconds(), "brain.Event:2"));
  flush();
}

void TensorBoardWriter::write(const std::string& payload) {
  const std::string r = frame_record(payload);
  out_.write(r.data(), static_cast<std::streamsize>(r.size()));
}

void TensorBoardWriter::add_text(const std::string& tag, const std::string& text, int64_t step) {
  write(encode_text_event(now_seconds(), step, tag, text));
}

void TensorBoardWriter::add_scalar(const std::string& tag, double value, int64_t step) {
  write(encode_scalar_event(now_seconds(), step, tag, static_cast<float>(value)));
}

void TensorBoardWriter::add_image(const std::string& tag, const std::string& png_bytes, int64_t height, int64_t width,
                                  int64_t channels, int64_t step) {
  write(encode_image_event(now_seconds(), step, tag, png_bytes, height, width, channels));
}

void TensorBoardWriter::flush() { out_.flush(); }

}  // namespace hamgan
