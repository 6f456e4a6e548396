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
  bool malformed = false;  // there, but neither "<bytes>\n" nor "<bytes> sha256:<64 hex>\n"
  uint64_t bytes = 0;
  std::string sha256;  // empty in markers that record the size only
};

bool all_of(const std::string& s, const char* chars) {
  return !s.empty() && s.find_first_not_of(chars) == std::string::npos;
}

// Read strictly: one changed byte ("sha257:", a cut digest) must not read as a
// marker that records no digest, which would turn the check off.
Marker read_marker(const std::string& checkpoint_path) {
  Marker m;
  std::ifstream in(completeness_marker_path(checkpoint_path), std::ios::binary);
  if (!in) return m;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  m.present = true;
  if (!text.empty() && text.back() == '\n') text.pop_back();
  const size_t space = text.find(' ');
  const std::string bytes = text.substr(0, space);
  const std::string digest = space == std::string::npos ? "" : text.substr(space + 1);
  const std::string prefix = kDigestPrefix;
  const bool digest_ok = space == std::string::npos ||
                         (digest.size() == prefix.size() + 64 && digest.rfind(prefix, 0) == 0 &&
                          all_of(digest.substr(prefix.size()), "0123456789abcdef"));
  if (!all_of(bytes, "0123456789") || bytes.size() > 19 || !digest_ok) {
    m.malformed = true;
    return m;
  }
  m.bytes = std::stoull(bytes);
  if (space != std::string::npos) m.sha256 = digest.substr(prefix.size());
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
  return m.present && !m.malformed && m.bytes == size;
}

bool marker_holds_size_only(const std::string& checkpoint_path) {
  const Marker m = read_marker(checkpoint_path);
  return m.present && !m.malformed && m.sha256.empty();
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
  if (m.malformed)
    throw CheckpointError(completeness_marker_path(checkpoint_path) +
                          ": damaged completeness marker (not \"<bytes> sha256:<digest>\"), so " + checkpoint_path +
                          " cannot be checked; use an earlier checkpoint of the run");
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
