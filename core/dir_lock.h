#pragma once
// An advisory lock on a directory, held for an object's lifetime: two training
// runs writing one run directory would interleave their logs and overwrite each
// other's checkpoints. The lock is flock(2) on `<dir>/.lock`, so the kernel
// releases it when the holder exits in any way (SIGKILL included): no stale
// lock outlives its process. The file records the holder's pid for the message.
#include <string>

namespace hamgan {

class DirectoryLock {
 public:
  // Creates `dir` if needed and takes the lock; throws ConfigError naming the
  // holder's pid when another process holds it.
  explicit DirectoryLock(const std::string& dir, const std::string& what = "run_dir");
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace hamgan
