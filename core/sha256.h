#pragma once
// SHA-256 through OpenSSL's libcrypto: of a file (the weights behind a feature
// extractor) and of a stream of bytes (the images behind FID statistics).
#include <cstddef>
#include <memory>
#include <string>

namespace hamgan {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t bytes);
  std::string hex();  // lower-case hex digest; ends the stream

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The digest of a file's bytes; DataError naming the file when it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace hamgan
