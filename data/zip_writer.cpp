// A streaming writer for stored ZIP archives (APPNOTE 4.3: local headers,
// central directory, ZIP64 end records when the archive needs them). libzip,
// which reads these archives, writes only at zip_close and keeps every added
// member until then: an ImageNet-sized dataset would sit in memory whole.
#include "data/zip_writer.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "data/image_bytes.h"

namespace hamgan {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEnd = 0x06054b50;
constexpr uint32_t kZip64End = 0x06064b50, kZip64Locator = 0x07064b50;
constexpr uint16_t kVersion = 20, kVersionZip64 = 45;  // what Python's zipfile writes
constexpr uint16_t kMadeByUnix = 3 << 8;
constexpr uint32_t kExternalAttr = 0600u << 16;         // zipfile.writestr's default: rw-------
constexpr uint64_t kMax32 = 0xFFFFFFFFu;
constexpr uint64_t kMaxEntries16 = 0xFFFFu;

// Little-endian fields appended to a byte string.
struct Bytes {
  std::string s;
  Bytes& u16(uint64_t v) { return raw(v, 2); }
  Bytes& u32(uint64_t v) { return raw(v, 4); }
  Bytes& u64(uint64_t v) { return raw(v, 8); }
  Bytes& str(const std::string& v) {
    s += v;
    return *this;
  }
  Bytes& raw(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s.push_back(char((v >> (8 * i)) & 0xFF));
    return *this;
  }
};

std::string shown_path(const std::string& path) {
  const std::string suffix = temporary_path_for("");
  if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return path.substr(0, path.size() - suffix.size());
  return path;
}

}  // namespace

ZipWriter::ZipWriter(const std::string& path, int64_t channels, int64_t height, int64_t width)
    : path_(path), shown_(shown_path(path)), c_(channels), h_(height), w_(width) {
  if (channels != 1 && channels != 3)
    throw DataError(shown_ + ": a ZIP dataset holds gray or RGB PNGs; got " + std::to_string(channels) + " channels");
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw DataError(shown_ + ": cannot create (" + std::strerror(errno) + "); check the directory");
  std::setvbuf(file_, nullptr, _IOFBF, size_t(1) << 20);
  // One timestamp for every member, in local time as zipfile.writestr stamps them.
  const std::time_t now = std::time(nullptr);
  std::tm t{};
  localtime_r(&now, &t);
  dos_time_ = uint16_t(t.tm_hour << 11 | t.tm_min << 5 | t.tm_sec / 2);
  dos_date_ = uint16_t((t.tm_year + 1900 - 1980) << 9 | (t.tm_mon + 1) << 5 | t.tm_mday);
}

ZipWriter::~ZipWriter() {
  if (file_) std::fclose(file_);
}

std::string ZipWriter::member_name(int64_t index) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%08lld", static_cast<long long>(index));
  const std::string idx = digits;
  return idx.substr(0, 5) + "/img" + idx + ".png";
}

void ZipWriter::put(const std::string& bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    throw DataError(shown_ + ": cannot write (" + std::strerror(errno) + "); free space or choose another directory");
  offset_ += bytes.size();
}

ZipWriter::Member ZipWriter::add(const std::string& name, const std::string& bytes) {
  if (bytes.size() >= kMax32)
    throw DataError(shown_ + ": member " + name + " needs 4 GiB or more; use smaller images");
  Member m;
  m.crc = uint32_t(crc32_z(0L, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
  m.size = uint32_t(bytes.size());
  m.offset = offset_;
  Bytes h;
  h.u32(kLocalHeader).u16(kVersion).u16(0).u16(0).u16(dos_time_).u16(dos_date_);
  h.u32(m.crc).u32(m.size).u32(m.size).u16(name.size()).u16(0).str(name);
  put(h.s);
  put(bytes);
  return m;
}

void ZipWriter::append(const uint8_t* images, const int64_t* labels, int64_t n) {
  const int64_t per = c_ * h_ * w_;
  for (int64_t i = 0; i < n; ++i) {
    const auto image = torch::from_blob(const_cast<uint8_t*>(images + i * per), {c_, h_, w_}, torch::kUInt8);
    members_.push_back(add(member_name(count()), encode_png_bytes(image, /*level=*/0)));
    labels_.push_back(labels[i]);
  }
}

void ZipWriter::finish(int64_t /*num_classes*/) {
  // json.dumps' default separators: ", " and ": ".
  std::string json = "{\"labels\": [";
  for (int64_t i = 0; i < count(); ++i)
    json += (i ? ", [\"" : "[\"") + member_name(i) + "\", " + std::to_string(labels_[i]) + "]";
  json += "]}";
  write_central_directory(add("dataset.json", json));
  const bool flushed = std::fflush(file_) == 0;
  const int err = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed)
    throw DataError(shown_ + ": cannot write (" + std::strerror(flushed ? errno : err) +
                    "); free space or choose another directory");
}

void ZipWriter::write_central_directory(const Member& json) {
  const uint64_t start = offset_;
  auto entry = [&](const std::string& name, const Member& m) {
    const bool far = m.offset >= kMax32;  // the offset moves to a ZIP64 extra field
    Bytes e;
    e.u32(kCentralHeader).u16(kMadeByUnix | (far ? kVersionZip64 : kVersion)).u16(far ? kVersionZip64 : kVersion);
    e.u16(0).u16(0).u16(dos_time_).u16(dos_date_).u32(m.crc).u32(m.size).u32(m.size);
    e.u16(name.size()).u16(far ? 12 : 0).u16(0).u16(0).u16(0).u32(kExternalAttr);
    e.u32(far ? kMax32 : m.offset).str(name);
    if (far) e.u16(0x0001).u16(8).u64(m.offset);
    put(e.s);
  };
  for (int64_t i = 0; i < count(); ++i) entry(member_name(i), members_[i]);
  entry("dataset.json", json);
  const uint64_t entries = uint64_t(count()) + 1, size = offset_ - start;
  Bytes end;
  if (entries > kMaxEntries16 || start >= kMax32 || size >= kMax32) {
    const uint64_t record = offset_;
    end.u32(kZip64End).u64(44).u16(kMadeByUnix | kVersionZip64).u16(kVersionZip64).u32(0).u32(0);
    end.u64(entries).u64(entries).u64(size).u64(start);
    end.u32(kZip64Locator).u32(0).u64(record).u32(1);
  }
  const uint64_t entries16 = std::min(entries, kMaxEntries16);
  end.u32(kEnd).u16(0).u16(0).u16(entries16).u16(entries16);
  end.u32(std::min(size, kMax32)).u32(std::min(start, kMax32)).u16(0);
  put(end.s);
}

}  // namespace hamgan
