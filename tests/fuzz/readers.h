#pragma once
// What each fuzz target does with its input bytes, shared with the regression
// test that replays every corpus file in the normal build
// (tests/reliability/fuzz_corpus_test.cpp). Each throws hamgan::Error for bad input.
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "core/config_file.h"
#include "core/safetensors.h"
#include "data/dataset.h"
#include "data/formats.h"
#include "data/image_io.h"
#include "gan/checkpoint/archive.h"
#include "core/safetensors.h"
#include "metrics/npz.h"
#include "metrics/stats.h"
#include "tests/fuzz/fuzz_input.h"

namespace hamgan::fuzz {

inline void read_png(const uint8_t* data, size_t size) {
  static const std::string path = scratch_path("input.png");
  write_file(path, data, size);
  load_png(path);
}

inline void read_jpeg(const uint8_t* data, size_t size) {
  static const std::string path = scratch_path("input.jpg");
  write_file(path, data, size);
  load_jpeg(path);
}

inline void write_maybe_gzip(const std::string& path, const uint8_t* data, size_t size, bool gzip) {
  if (!gzip) return write_file(path, data, size);
  gzFile f = gzopen(path.c_str(), "wb1");
  if (!f) std::abort();
  if (size > 0) gzwrite(f, data, static_cast<unsigned>(size));
  gzclose(f);
}

// The spec the dataset readers below open their scratch input with.
inline DatasetSpec quiet_spec(const std::string& path) {
  DatasetSpec spec;
  spec.path = path;
  spec.quiet = true;
  return spec;
}

inline void read_some(const Dataset& ds) {
  for (int64_t i = 0; i < std::min<int64_t>(ds.size(), 4); ++i) ds.get(i);
  if (ds.size() > 0) ds.get(ds.size() - 1);
}

// The input is split into the labels file and the images file by its first two
// bytes (the labels file's length); bit 0 of the third byte stores both gzipped.
inline void read_idx(const uint8_t* data, size_t size) {
  if (size < 3) return;
  static const std::string dir = scratch_path("idx");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const size_t label_bytes = std::min<size_t>((size_t(data[0]) << 8) | data[1], size - 3);
  const bool gzip = data[2] & 1;
  const std::string ext = gzip ? ".gz" : "";
  write_maybe_gzip(dir + "/train-labels-idx1-ubyte" + ext, data + 3, label_bytes, gzip);
  write_maybe_gzip(dir + "/train-images-idx3-ubyte" + ext, data + 3 + label_bytes, size - 3 - label_bytes, gzip);
  read_some(*open_idx_dataset(quiet_spec(dir)));
}

inline void read_hdf5(const uint8_t* data, size_t size) {
  static const std::string path = scratch_path("input.hdf5");
  write_file(path, data, size);
  read_some(*open_hdf5_dataset(quiet_spec(path)));
}

// A dataset_tool ZIP: members listed, labels parsed, a few images decoded.
inline void read_zip(const uint8_t* data, size_t size) {
  static const std::string path = scratch_path("input.zip");
  write_file(path, data, size);
  read_some(*open_zip_dataset(quiet_spec(path)));
}

inline void read_npz_input(const uint8_t* data, size_t size) {
  static const std::string path = scratch_path("input.npz");
  write_file(path, data, size);
  try {
    read_npz(path);
  } catch (const Error&) {
  }
  load_stats(path);
}

inline void read_safetensors_input(const uint8_t* data, size_t size) {
  parse_safetensors(std::string(reinterpret_cast<const char*>(data), size), "input.safetensors");
}

inline void read_toml(const uint8_t* data, size_t size) {
  parse_config_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz.toml");
}

// Opens the archive, then reads the values every loader reads first.
inline void read_checkpoint(const uint8_t* data, size_t size) {
  static const std::string path = scratch_path("input.pt");
  write_file(path, data, size);
  CheckpointReader reader(path);
  reader.get_string("model_config");
  reader.get_int("step");
  if (reader.has("noise_rng")) reader.get_tensor("noise_rng");
}

using Reader = std::function<void(const uint8_t*, size_t)>;

// Fuzz target name -> reader, for the corpus replay test.
inline const std::map<std::string, Reader>& readers() {
  static const std::map<std::string, Reader> all = {
      {"fuzz_png", read_png},   {"fuzz_jpeg", read_jpeg}, {"fuzz_idx", read_idx},
      {"fuzz_hdf5", read_hdf5}, {"fuzz_npz", read_npz_input}, {"fuzz_toml", read_toml},
      {"fuzz_checkpoint", read_checkpoint}, {"fuzz_zip", read_zip}, {"fuzz_safetensors", read_safetensors_input}};
  return all;
}

}  // namespace hamgan::fuzz
