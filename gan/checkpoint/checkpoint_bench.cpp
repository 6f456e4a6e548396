#include "gan/checkpoint/checkpoint_bench.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/sha256.h"
#include "gan/checkpoint/archive.h"

namespace hamgan {
namespace fs = std::filesystem;
namespace {

double seconds_of(const std::function<void()>& work) {
  const auto t0 = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

CheckpointBenchResult bench_checkpoint(const CheckpointBenchConfig& cfg) {
  const fs::path dir = cfg.dir.empty() ? fs::temp_directory_path() : fs::path(cfg.dir);
  fs::create_directories(dir);
  const std::string path = (dir / ("hamgan_bench_checkpoint_" + std::to_string(::getpid()) + ".pt")).string();
  CheckpointBenchResult r;
  {
    // 16 MiB tensors, like the larger layers of a 128x128 model and their Adam moments.
    constexpr int64_t kChunkFloats = int64_t(4) << 20;
    CheckpointWriter w;
    const int64_t chunks = std::max<int64_t>(1, cfg.mib / 16);
    for (int64_t i = 0; i < chunks; ++i) w.put("t" + std::to_string(i), torch::randn({kChunkFloats}));
    r.write_s = seconds_of([&] { w.save(path); });
  }
  r.bytes = static_cast<int64_t>(fs::file_size(path));
  r.first_open_s = seconds_of([&] { CheckpointReader reader(path); });
  r.second_open_s = seconds_of([&] { CheckpointReader reader(path); });
  r.sha256_s = seconds_of([&] { sha256_file(path); });
  std::error_code ec;
  fs::remove(path, ec);
  fs::remove(completeness_marker_path(path), ec);

  nlohmann::ordered_json j;
  j["bytes"] = r.bytes;
  j["write_s"] = r.write_s;
  j["first_open_s"] = r.first_open_s;
  j["second_open_s"] = r.second_open_s;
  j["sha256_s"] = r.sha256_s;
  j["sha256_gib_per_s"] = r.sha256_s > 0 ? r.bytes / r.sha256_s / double(1 << 30) : 0.0;
  j["digest_share_of_first_open"] = r.first_open_s > 0 ? r.sha256_s / r.first_open_s : 0.0;
  std::cout << j.dump(2) << "\n";
  if (!cfg.json.empty()) write_text_atomically(cfg.json, j.dump(2) + "\n");
  return r;
}

}  // namespace hamgan
