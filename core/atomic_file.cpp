#include "core/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
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

static bool process_exists(long pid) {
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;  // EPERM: alive, another user's
}

std::vector<std::string> remove_stale_temporaries(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const auto at = name.rfind(".tmp.");
    if (at == std::string::npos || !e.is_regular_file(ec)) continue;
    const std::string digits = name.substr(at + 5);
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(digits);
    if (pid <= 0 || pid == ::getpid() || process_exists(pid)) continue;
    if (fs::remove(e.path(), ec)) removed.push_back(e.path().string());
  }
  return removed;
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
