#include "core/checked_file.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/errors.h"

namespace hamgan {

CheckedFileWriter::CheckedFileWriter(const std::string& write_path, const std::string& reported_path)
    : reported_path_(reported_path) {
  fd_ = ::open(write_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Error(reported_path_ + ": cannot create (" + std::strerror(errno) + "); check the directory's permissions");
}

CheckedFileWriter::~CheckedFileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

size_t CheckedFileWriter::write(const void* data, size_t n) {
  requested_ += n;
  const char* p = static_cast<const char*>(data);
  size_t left = error_ ? 0 : n;
  while (left > 0) {
    const ssize_t w = ::write(fd_, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      error_ = w < 0 ? errno : ENOSPC;  // a zero-byte write on a regular file means no room
      break;
    }
    p += w;
    written_ += static_cast<uint64_t>(w);
    left -= static_cast<size_t>(w);
  }
  return n;
}

void CheckedFileWriter::finish() {
  if (!error_ && ::fsync(fd_) != 0 && errno != EINVAL) error_ = errno;
  if (::close(fd_) != 0 && !error_) error_ = errno;
  fd_ = -1;
  if (!error_) return;
  std::string msg = reported_path_ + ": cannot write (" + std::strerror(error_) + ")";
  if (error_ == ENOSPC || error_ == EDQUOT) {
    const std::string dir = std::filesystem::path(reported_path_).parent_path().string();
    msg += "; the file needs " + human_bytes(requested_) + " and " + human_bytes(free_bytes_at(dir.empty() ? "." : dir) + written_) +
           " is free there without it: free space or choose another directory";
  }
  throw Error(msg);
}

std::string human_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

uint64_t free_bytes_at(const std::string& path) {
  struct statvfs s {};
  if (::statvfs(path.c_str(), &s) != 0) return 0;
  return static_cast<uint64_t>(s.f_bavail) * s.f_frsize;
}

}  // namespace hamgan
