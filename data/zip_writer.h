#pragma once
// Writes ZIP datasets exactly as StyleGAN2-ADA's and EDM's dataset_tool.py do:
// stored (uncompressed) members `{i:08d}`[:5]/img{i:08d}.png holding PNGs (RGB
// or gray, zlib level 0) in append order, then dataset.json with
// {"labels": [[name, class], ...]} in Python's json.dumps spelling. Members are
// streamed to the file as they come (ZIP64 records once the archive needs
// them), so memory stays flat however many images there are.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace hamgan {

class ZipWriter {
 public:
  // Creates (truncates) `path`; errors name `path` without write_atomically's
  // temporary suffix. Throws DataError when it cannot be created.
  ZipWriter(const std::string& path, int64_t channels, int64_t height, int64_t width);
  // Before finish(), abandons the file: closed, incomplete, for the caller to remove.
  ~ZipWriter();
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  // Appends n images ((n, C, H, W) uint8 bytes) and their labels.
  void append(const uint8_t* images, const int64_t* labels, int64_t n);
  // Writes dataset.json and the central directory, then closes the file.
  // `num_classes` is implied by the labels (the format has no field for it).
  void finish(int64_t num_classes);
  int64_t count() const { return int64_t(members_.size()); }

  // dataset_tool.py's member name for image `index`.
  static std::string member_name(int64_t index);

 private:
  struct Member {
    uint32_t crc = 0;
    uint32_t size = 0;
    uint64_t offset = 0;  // of the local header
  };
  Member add(const std::string& name, const std::string& bytes);
  void put(const std::string& bytes);
  void write_central_directory(const Member& json);

  std::string path_, shown_;
  std::FILE* file_ = nullptr;
  int64_t c_, h_, w_;
  uint64_t offset_ = 0;
  uint16_t dos_time_ = 0, dos_date_ = 0;
  std::vector<Member> members_;  // the images, in order
  std::vector<int64_t> labels_;
};

}  // namespace hamgan
