#pragma once
// Shared by the fuzz targets: the input bytes as a file (the readers take
// paths), and the rule that a project error is a pass. Anything else escaping
// (another exception type, a crash, a sanitizer report) is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "core/errors.h"

namespace hamgan::fuzz {

// A per-process scratch path in memory-backed /dev/shm (falls back to /tmp).
inline std::string scratch_path(const std::string& name) {
  const char* base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return std::string(base) + "/hamgan_fuzz_" + std::to_string(getpid()) + "_" + name;
}

inline void write_file(const std::string& path, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
}

template <class F>
int expect_project_errors_only(F&& read) {
  try {
    read();
  } catch (const hamgan::Error&) {
    // A clear error for bad input: the behaviour wanted.
  }
  return 0;
}

}  // namespace hamgan::fuzz
