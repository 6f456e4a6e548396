#pragma once
// One checkpoint file: a LibTorch archive of named values, modules and
// optimisers, with a format version, so an old binary refuses a newer file.
// The writer saves to a temporary file, renames it into place and only then
// writes the completeness marker `<file>.done` (the file's size and SHA-256,
// core/completeness_marker.h), so a crash at any moment leaves either the
// previous state or a complete new one, never a file that looks complete but is
// not. The reader checks the digest before parsing (bit rot is refused, not
// loaded) and refuses a newer format with a line naming both versions.
#include <torch/torch.h>

#include <string>

#include "core/completeness_marker.h"

namespace hamgan {

// 2: the per-run noise stream, best score, run identity and every CUDA device's RNG state.
// 3: the objective's state under its components' names ("objective_lecam", ...); an older
// binary would not find it there, so it refuses these files. Format 2 files still load.
inline constexpr int64_t kCheckpointFormatVersion = 3;
inline constexpr int64_t kOldestCheckpointFormatVersion = 2;
// Present (1) in files whose completeness marker records their SHA-256.
inline constexpr const char* kDigestInMarkerKey = "digest_in_marker";

class CheckpointWriter {
 public:
  // `format_version` other than the current one, and `digest_in_marker` false (a file
  // as written before markers held a digest), exist for tests of the reader.
  explicit CheckpointWriter(int64_t format_version = kCheckpointFormatVersion, bool digest_in_marker = true);
  void put(const std::string& key, int64_t value);
  void put(const std::string& key, double value);
  void put(const std::string& key, const std::string& value);
  void put(const std::string& key, const torch::Tensor& value);
  void put_module(const std::string& key, torch::nn::Module& module);
  void put_optimizer(const std::string& key, torch::optim::Optimizer& optimizer);
  // Atomically writes `path`, then its completeness marker.
  void save(const std::string& path);

 private:
  torch::serialize::OutputArchive archive_;
};

class CheckpointReader {
 public:
  // Throws CheckpointError (one line) for a missing, damaged, unreadable or newer-format file.
  explicit CheckpointReader(const std::string& path, torch::Device device = torch::kCPU);
  bool has(const std::string& key);
  int64_t get_int(const std::string& key);
  double get_double(const std::string& key);
  std::string get_string(const std::string& key);
  torch::Tensor get_tensor(const std::string& key);
  // Loads into a module or optimiser of the same structure; a mismatch is a CheckpointError.
  void load_module(const std::string& key, torch::nn::Module& module);
  void load_optimizer(const std::string& key, torch::optim::Optimizer& optimizer);
  bool has_module(const std::string& key);
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void missing(const std::string& key) const;
  // Runs `read`, turning LibTorch's exceptions about a damaged record into a CheckpointError.
  template <class F>
  auto guarded(const std::string& key, F&& read) -> decltype(read());
  std::string path_;
  torch::serialize::InputArchive archive_;
};

}  // namespace hamgan
