#include "core/sha256.h"

#include <openssl/evp.h>

#include <cstdio>
#include <memory>

#include "core/errors.h"

namespace hamgan {

struct Sha256::Impl {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {
  impl_->ctx = EVP_MD_CTX_new();
  if (!impl_->ctx || EVP_DigestInit_ex(impl_->ctx, EVP_sha256(), nullptr) != 1)
    throw Error("sha256: OpenSSL could not start a digest");
}

Sha256::~Sha256() { EVP_MD_CTX_free(impl_->ctx); }

void Sha256::update(const void* data, size_t bytes) {
  if (EVP_DigestUpdate(impl_->ctx, data, bytes) != 1) throw Error("sha256: OpenSSL digest update failed");
}

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(impl_->ctx, digest, &len) != 1) throw Error("sha256: OpenSSL digest failed");
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

std::string sha256_file(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw DataError(path + ": cannot open to compute its SHA-256");
  Sha256 h;
  std::unique_ptr<char[]> buf(new char[1 << 20]);
  size_t n;
  while ((n = std::fread(buf.get(), 1, 1 << 20, f.get())) > 0) h.update(buf.get(), n);
  if (std::ferror(f.get())) throw DataError(path + ": read error while computing its SHA-256");
  return h.hex();
}

}  // namespace hamgan
