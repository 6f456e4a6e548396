#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/errors.h"

namespace hamgan {

std::string temporary_path_for(const std::string& final_path) {
  return final_path + ".tmp." + std::to_string(::getpid());
}

static void fsync_path(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;  // best effort: some filesystems refuse directories
  ::fsync(fd);
  ::close(fd);
}

void write_atomically(const std::string& final_path,
                      const std::function<void(const std::string&)>& write) {
  namespace fs = std::filesystem;
  const std::string tmp = temporary_path_for(final_path);
  const fs::path parent = fs::path(final_path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) throw Error(parent.string() + ": cannot create directory (" + ec.message() + ")");
  }
  try {
    write(tmp);
  } catch (...) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
  fsync_path(tmp);
  if (std::rename(tmp.c_str(), final_path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::error_code ec;
    fs::remove(tmp, ec);
    throw Error(final_path + ": cannot move finished file into place (" + why + ")");
  }
  fsync_path(parent.empty() ? std::string(".") : parent.string());
}

void write_text_atomically(const std::string& path, const std::string& text) {
  write_atomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp);
    out << text;
    if (!out.flush()) throw Error(path + ": cannot write (disk full or no permission?)");
  });
}

}  // namespace hamgan
