#pragma once
// Read access to a ZIP archive's members through libzip, shareable between
// threads: libzip's handle is not safe for concurrent use, so reads of member
// bytes are serialised (decoding them is the caller's, outside the lock).
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hamgan {

class ZipArchive {
 public:
  // Opens `path` (stored or deflated members, ZIP64 included); throws
  // DataError naming it when it is not a readable ZIP archive.
  explicit ZipArchive(const std::string& path);
  ~ZipArchive();
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  const std::string& path() const { return path_; }
  // Member names in archive order, as Python's zipfile decodes them (UTF-8
  // when flagged, else CP437).
  const std::vector<std::string>& names() const { return names_; }
  // Index of member `name`, or -1.
  int64_t find(const std::string& name) const;
  // The whole member, its CRC checked. Thread-safe; throws DataError.
  std::string read(int64_t index) const;

 private:
  std::string path_;
  struct Handle;
  std::unique_ptr<Handle> handle_;
  std::vector<std::string> names_;
  mutable std::mutex mutex_;
};

// True when the file starts with a ZIP signature (a local file header, or the
// end record of an empty archive).
bool looks_like_zip(const std::string& path);

}  // namespace hamgan
