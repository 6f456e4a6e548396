#include "core/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/errors.h"

namespace hamgan {
namespace fs = std::filesystem;

DirectoryLock::DirectoryLock(const std::string& dir, const std::string& what) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string path = (fs::path(dir) / ".lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw ConfigError(what + ": cannot create " + path + " (" + std::strerror(errno) + ")");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int why = errno;
    std::string holder;
    std::ifstream(path) >> holder;
    ::close(fd_);
    fd_ = -1;
    if (why != EWOULDBLOCK)
      throw ConfigError(what + ": cannot lock " + path + " (" + std::strerror(why) + ")");
    throw ConfigError(what + ": " + dir + " is in use by another hamgan process" +
                      (holder.empty() ? std::string() : " (pid " + holder + ")") +
                      "; wait for it to end or choose another directory");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The lock itself holds; only the pid in the message of a second run is lost.
  }
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace hamgan
