#include "core/completeness_marker.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <tuple>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/sha256.h"

namespace hamgan {
namespace fs = std::filesystem;
namespace {

constexpr const char* kDigestPrefix = "sha256:";

struct Marker {
  bool present = false;
  uint64_t bytes = 0;
  std::string sha256;  // empty in markers that record the size only
};

Marker read_marker(const std::string& checkpoint_path) {
  Marker m;
  std::ifstream in(completeness_marker_path(checkpoint_path));
  unsigned long long bytes = 0;
  if (!(in >> bytes)) return m;
  m.present = true;
  m.bytes = bytes;
  std::string digest;
  if (in >> digest && digest.rfind(kDigestPrefix, 0) == 0) m.sha256 = digest.substr(std::string(kDigestPrefix).size());
  return m;
}

// (path, size, change time in ns, recorded digest) of files this process has verified.
using Verified = std::tuple<std::string, uint64_t, int64_t, std::string>;

bool identity_of(const std::string& path, const Marker& m, Verified& out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  const int64_t ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  out = Verified{fs::absolute(path).lexically_normal().string(), static_cast<uint64_t>(st.st_size), ctime_ns, m.sha256};
  return true;
}

std::mutex verified_mutex;
std::set<Verified>& verified_files() {
  static std::set<Verified> files;
  return files;
}

}  // namespace

std::string completeness_marker_path(const std::string& checkpoint_path) { return checkpoint_path + ".done"; }

void write_completeness_marker(const std::string& checkpoint_path, uint64_t bytes, const std::string& sha256_hex) {
  write_text_atomically(completeness_marker_path(checkpoint_path),
                        std::to_string(bytes) + " " + kDigestPrefix + sha256_hex + "\n");
}

bool checkpoint_is_complete(const std::string& checkpoint_path) {
  std::error_code ec;
  const auto size = fs::file_size(checkpoint_path, ec);
  if (ec) return false;
  const Marker m = read_marker(checkpoint_path);
  return m.present && m.bytes == size;
}

bool checkpoint_digest_matches(const std::string& checkpoint_path) {
  const Marker m = read_marker(checkpoint_path);
  if (m.sha256.empty()) return false;
  Verified id;
  if (!identity_of(checkpoint_path, m, id)) return false;
  {
    std::lock_guard<std::mutex> lock(verified_mutex);
    if (verified_files().count(id)) return true;
  }
  std::string actual;
  try {
    actual = sha256_file(checkpoint_path);
  } catch (const Error&) {
    return false;
  }
  if (actual != m.sha256) return false;
  std::lock_guard<std::mutex> lock(verified_mutex);
  verified_files().insert(id);
  return true;
}

void verify_checkpoint_digest(const std::string& checkpoint_path) {
  const Marker m = read_marker(checkpoint_path);
  if (m.sha256.empty()) return;
  std::error_code ec;
  if (fs::file_size(checkpoint_path, ec) != m.bytes)
    throw CheckpointError(checkpoint_path + ": incomplete: its size differs from the one recorded in " +
                          completeness_marker_path(checkpoint_path) + "; use an earlier checkpoint of the run");
  if (checkpoint_digest_matches(checkpoint_path)) return;
  throw CheckpointError(checkpoint_path + ": damaged: its bytes differ from the SHA-256 recorded in " +
                        completeness_marker_path(checkpoint_path) +
                        " when it was written (bit rot, a failing disk, or the file was changed); "
                        "use an earlier checkpoint of the run");
}

}  // namespace hamgan
