#include "gan/checkpoint/archive.h"

#include <zip.h>

#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/checked_file.h"
#include "core/errors.h"
#include "core/sha256.h"

namespace hamgan {
namespace fs = std::filesystem;

CheckpointWriter::CheckpointWriter(int64_t format_version, bool digest_in_marker) {
  archive_.write("format_version", torch::tensor(format_version));
  // Lets the reader tell a marker cut down to its size from one written before markers held a digest.
  if (digest_in_marker) archive_.write(kDigestInMarkerKey, torch::tensor(int64_t{1}));
}

void CheckpointWriter::put(const std::string& key, int64_t value) { archive_.write(key, torch::tensor(value)); }
void CheckpointWriter::put(const std::string& key, double value) {
  archive_.write(key, torch::tensor(value, torch::kDouble));
}
void CheckpointWriter::put(const std::string& key, const std::string& value) { archive_.write(key, c10::IValue(value)); }
void CheckpointWriter::put(const std::string& key, const torch::Tensor& value) { archive_.write(key, value); }

void CheckpointWriter::put_module(const std::string& key, torch::nn::Module& module) {
  torch::serialize::OutputArchive sub;
  module.save(sub);
  archive_.write(key, sub);
}

void CheckpointWriter::put_optimizer(const std::string& key, torch::optim::Optimizer& optimizer) {
  torch::serialize::OutputArchive sub;
  optimizer.save(sub);
  archive_.write(key, sub);
}

void CheckpointWriter::save(const std::string& path) {
  std::error_code ec;
  fs::remove(completeness_marker_path(path), ec);  // the old marker must not vouch for the new file
  Sha256 digest;
  // Streamed through a writer that keeps write errors: LibTorch's own file
  // writer throws from its destructor on a full disk, which aborts the process.
  write_atomically(path, [&](const std::string& tmp) {
    CheckedFileWriter out(tmp, path);
    archive_.save_to([&](const void* data, size_t n) {
      digest.update(data, n);  // of the bytes as they leave, so the digest costs no second read
      return out.write(data, n);
    });
    out.finish();
  });
  write_completeness_marker(path, fs::file_size(path), digest.hex());
}

namespace {

// LibTorch allocates each record at the size its zip header states; a damaged
// header can state gigabytes. Its archives store records uncompressed, so no
// record can be larger than the file: checked with libzip before LibTorch reads.
void check_record_sizes(const std::string& path) {
  const std::string corrupt = path + ": not a readable HamGAN checkpoint (truncated or corrupt archive); " +
                              "use an earlier checkpoint of the run";
  int error = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_RDONLY, &error);
  if (!za) throw CheckpointError(corrupt);
  std::error_code ec;
  const uint64_t file_bytes = fs::file_size(path, ec);
  bool ok = true;
  const zip_int64_t n = zip_get_num_entries(za, 0);
  for (zip_int64_t i = 0; ok && i < n; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    ok = zip_stat_index(za, static_cast<zip_uint64_t>(i), 0, &st) == 0 && (st.valid & ZIP_STAT_SIZE) &&
         st.size <= file_bytes;
  }
  zip_discard(za);
  if (!ok) throw CheckpointError(corrupt);
}

}  // namespace

CheckpointReader::CheckpointReader(const std::string& path, torch::Device device) : path_(path) {
  if (!fs::is_regular_file(path)) throw CheckpointError(path + ": no such checkpoint file");
  verify_checkpoint_digest(path);
  check_record_sizes(path);
  try {
    archive_.load_from(path, device);
  } catch (const std::exception&) {  // c10::Error, and TorchScript's ErrorReport for a damaged code section
    throw CheckpointError(path + ": not a readable HamGAN checkpoint (truncated or corrupt archive); " +
                          "use an earlier checkpoint of the run");
  }
  torch::Tensor version;
  if (!guarded("format_version", [&] { return archive_.try_read("format_version", version); }) ||
      version.numel() != 1)
    throw CheckpointError(path + ": not a HamGAN checkpoint (no format_version)");
  const int64_t v = guarded("format_version", [&] { return version.item<int64_t>(); });
  if (v > kCheckpointFormatVersion)
    throw CheckpointError(path + ": checkpoint format " + std::to_string(v) + " is newer than this hamgan reads (" +
                          std::to_string(kCheckpointFormatVersion) + "); update hamgan");
  if (v < kOldestCheckpointFormatVersion)
    throw CheckpointError(path + ": checkpoint format " + std::to_string(v) + " is older than this hamgan reads (" +
                          std::to_string(kOldestCheckpointFormatVersion) + " to " +
                          std::to_string(kCheckpointFormatVersion) + "); use the hamgan version that wrote it");
  if (marker_holds_size_only(path) && has(kDigestInMarkerKey))
    throw CheckpointError(completeness_marker_path(path) + ": damaged completeness marker (it records no SHA-256, "
                          "but " + path + " was written with one), so the file cannot be checked; use an earlier "
                          "checkpoint of the run");
}

void CheckpointReader::missing(const std::string& key) const {
  throw CheckpointError(path_ + ": checkpoint has no " + key + " (written by another tool or an incomplete save)");
}

template <class F>
auto CheckpointReader::guarded(const std::string& key, F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception&) {  // a damaged record inside a well-formed archive
    throw CheckpointError(path_ + ": " + key + " is unreadable (corrupt checkpoint); use an earlier checkpoint of the run");
  }
}

bool CheckpointReader::has(const std::string& key) {
  return guarded(key, [&] {
    c10::IValue v;
    return archive_.try_read(key, v);
  });
}

torch::Tensor CheckpointReader::get_tensor(const std::string& key) {
  return guarded(key, [&] {
    torch::Tensor t;
    if (!archive_.try_read(key, t)) missing(key);
    return t;
  });
}

int64_t CheckpointReader::get_int(const std::string& key) {
  const torch::Tensor t = get_tensor(key);
  if (t.numel() != 1) missing(key);
  return guarded(key, [&] { return t.item<int64_t>(); });
}

double CheckpointReader::get_double(const std::string& key) {
  const torch::Tensor t = get_tensor(key);
  if (t.numel() != 1) missing(key);
  return guarded(key, [&] { return t.item<double>(); });
}

std::string CheckpointReader::get_string(const std::string& key) {
  return guarded(key, [&] {
    c10::IValue v;
    if (!archive_.try_read(key, v) || !v.isString()) missing(key);
    return v.toStringRef();
  });
}

bool CheckpointReader::has_module(const std::string& key) {
  return guarded(key, [&] {
    torch::serialize::InputArchive sub;
    return archive_.try_read(key, sub);
  });
}

void CheckpointReader::load_module(const std::string& key, torch::nn::Module& module) {
  torch::serialize::InputArchive sub;
  if (!archive_.try_read(key, sub)) missing(key);
  try {
    module.load(sub);
  } catch (const c10::Error& e) {
    throw CheckpointError(path_ + ": " + key + " does not match the configured model (" + e.what_without_backtrace() +
                          "); use the run's own config");
  }
}

void CheckpointReader::load_optimizer(const std::string& key, torch::optim::Optimizer& optimizer) {
  torch::serialize::InputArchive sub;
  if (!archive_.try_read(key, sub)) missing(key);
  try {
    optimizer.load(sub);
  } catch (const c10::Error& e) {
    throw CheckpointError(path_ + ": " + key + " does not match the configured optimiser (" +
                          e.what_without_backtrace() + ")");
  }
}

}  // namespace hamgan
