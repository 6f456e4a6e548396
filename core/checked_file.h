#pragma once
// A file written through one descriptor whose write errors (ENOSPC, EIO, EDQUOT)
// are kept rather than thrown mid-stream. Writers that cannot take an exception
// from their callback (LibTorch's archive writer throws from its destructor and
// aborts the process) stream into it and ask afterwards, in finish(), whether
// every byte arrived; the message names the path, the bytes the file needed and
// the space left.
#include <cstddef>
#include <cstdint>
#include <string>

namespace hamgan {

class CheckedFileWriter {
 public:
  // `write_path` is opened (created or truncated); `reported_path` is the name
  // errors give (the final name of an atomic write, not its temporary).
  CheckedFileWriter(const std::string& write_path, const std::string& reported_path);
  ~CheckedFileWriter();
  CheckedFileWriter(const CheckedFileWriter&) = delete;
  CheckedFileWriter& operator=(const CheckedFileWriter&) = delete;

  // Always reports `n` bytes taken; after the first failure it only counts them.
  size_t write(const void* data, size_t n);
  // Flushes to disk and closes; throws Error (one line) when any write failed.
  void finish();
  uint64_t bytes_requested() const { return requested_; }

 private:
  std::string reported_path_;
  int fd_ = -1;
  int error_ = 0;  // errno of the first failed write, fsync or close
  uint64_t requested_ = 0;
  uint64_t written_ = 0;  // on disk now; freed again when the caller removes the file
};

// "12.3 MiB" style size for messages.
std::string human_bytes(uint64_t bytes);
// Bytes free to an unprivileged writer in the filesystem holding `path` (0 when unknown).
uint64_t free_bytes_at(const std::string& path);

}  // namespace hamgan
