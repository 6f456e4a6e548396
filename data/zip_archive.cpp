#include "data/zip_archive.h"

#include <zip.h>

#include <cstring>
#include <fstream>
#include <unordered_map>

#include "core/errors.h"

namespace hamgan {
namespace {

// A member larger than this is not an image of any size data/image_limits.h allows.
constexpr uint64_t kMaxMemberBytes = uint64_t(1) << 30;

}  // namespace

struct ZipArchive::Handle {
  zip_t* zip = nullptr;
  ~Handle() {
    if (zip) zip_discard(zip);  // read-only: nothing to write back
  }
};

ZipArchive::ZipArchive(const std::string& path) : path_(path), handle_(std::make_unique<Handle>()) {
  int code = 0;
  handle_->zip = zip_open(path.c_str(), ZIP_RDONLY, &code);
  if (!handle_->zip) {
    zip_error_t err;
    zip_error_init_with_code(&err, code);
    const std::string message = zip_error_strerror(&err);
    zip_error_fini(&err);
    throw DataError(path + ": not a readable ZIP archive (" + message +
                    "); expected a ZIP written by dataset_tool.py or hamgan prepare --format zip");
  }
  const zip_int64_t n = zip_get_num_entries(handle_->zip, 0);
  names_.reserve(n > 0 ? size_t(n) : 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* name = zip_get_name(handle_->zip, zip_uint64_t(i), ZIP_FL_ENC_STRICT);
    if (!name) throw DataError(path + ": cannot read the name of member " + std::to_string(i) + " (" +
                               zip_strerror(handle_->zip) + "); the archive is damaged");
    names_.emplace_back(name);
  }
  // Readers disagree on a repeated name (EDM's and zipfile's keep the last
  // entry, a walk of all entries reads both): one image would come out twice or
  // labelled wrong, so the archive is refused.
  std::unordered_map<std::string, size_t> first;
  for (size_t i = 0; i < names_.size(); ++i) {
    const auto [it, fresh] = first.emplace(names_[i], i);
    if (!fresh && (names_[i].empty() || names_[i].back() != '/'))
      throw DataError(path + ": member " + names_[i] + " appears twice (entries " + std::to_string(it->second) +
                      " and " + std::to_string(i) + "); rebuild the archive with each name once, e.g. extract it "
                      "with 'python -m zipfile -e' (the last copy wins, as in EDM's reader) and zip the folder again");
  }
}

ZipArchive::~ZipArchive() = default;

int64_t ZipArchive::find(const std::string& name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return int64_t(i);
  return -1;
}

std::string ZipArchive::read(int64_t index) const {
  const std::string what = path_ + ":" + names_.at(size_t(index));
  std::lock_guard<std::mutex> lock(mutex_);
  zip_t* za = handle_->zip;
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(za, zip_uint64_t(index), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    throw DataError(what + ": cannot read the member's size (" + zip_strerror(za) + "); the archive is damaged");
  if (st.size > kMaxMemberBytes)
    throw DataError(what + ": member of " + std::to_string(st.size) + " bytes is larger than any image allowed (1 GiB)");
  zip_file_t* f = zip_fopen_index(za, zip_uint64_t(index), 0);
  if (!f) throw DataError(what + ": cannot open the member (" + zip_strerror(za) + ")");
  std::string bytes(st.size, '\0');
  zip_uint64_t got = 0;
  zip_int64_t r = 0;
  // Read to the end: libzip checks the CRC when the member is exhausted.
  char probe;
  while (got < st.size && (r = zip_fread(f, &bytes[got], st.size - got)) > 0) got += zip_uint64_t(r);
  if (r >= 0 && got == st.size) r = zip_fread(f, &probe, 1);
  std::string message = r < 0 ? zip_file_strerror(f) : "";
  zip_fclose(f);
  if (r < 0 || got != st.size)
    throw DataError(what + ": member is truncated or corrupt (" + (message.empty() ? "short read" : message) +
                    "); re-create the archive");
  if (r > 0) throw DataError(what + ": member is longer than its directory entry says; re-create the archive");
  return bytes;
}

bool looks_like_zip(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char sig[4] = {0};
  if (!in.read(sig, 4)) return false;
  return std::memcmp(sig, "PK\x03\x04", 4) == 0 || std::memcmp(sig, "PK\x05\x06", 4) == 0;
}

}  // namespace hamgan
