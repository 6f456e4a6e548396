#include "data/loader_bench.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "core/errors.h"
#include "data/hdf5_writer.h"
#include "data/loader.h"

namespace hamgan {
namespace {

// Random pixels and labels in BigGAN layout, written in chunk-sized blocks.
void write_synthetic(const std::string& path, int64_t count, int64_t size) {
  Hdf5Writer writer(path, 3, size, size);
  torch::manual_seed(0);
  for (int64_t s = 0; s < count; s += 500) {
    const int64_t n = std::min<int64_t>(500, count - s);
    auto imgs = torch::randint(0, 256, {n, 3, size, size}, torch::kUInt8);
    auto labels = torch::randint(0, 1000, {n}, torch::kInt64);
    writer.append(imgs.data_ptr<uint8_t>(), labels.data_ptr<int64_t>(), n);
  }
  writer.finish(1000);
}

}  // namespace

LoaderBenchResult bench_loader(const LoaderBenchConfig& config) {
  namespace fs = std::filesystem;
  if (config.seconds <= 0) throw ConfigError("bench data: seconds must be > 0");
  std::string path = config.path;
  fs::path tmp_dir;
  if (path.empty()) {
    tmp_dir = fs::temp_directory_path() / ("hamgan_bench_data_" + std::to_string(::getpid()));
    fs::create_directories(tmp_dir);
    path = (tmp_dir / "synthetic.hdf5").string();
    std::cout << "writing " << config.synthetic_count << " synthetic " << config.size << "x" << config.size
              << " images to " << path << "\n";
    write_synthetic(path, config.synthetic_count, config.size);
  }
  LoaderBenchResult r;
  try {
    DatasetSpec spec;
    spec.path = path;
    spec.in_memory = config.in_memory;
    auto ds = open_dataset(spec);
    LoaderOptions opt;
    opt.batch_size = config.batch_size;
    opt.workers = config.workers;
    opt.prefetch = config.prefetch;
    opt.flip = config.flip;
    DataLoader loader(ds, opt);
    loader.next();  // warm-up: threads started, first permutation drawn
    const auto t0 = std::chrono::steady_clock::now();
    double elapsed = 0;
    while (elapsed < config.seconds) {
      r.images += loader.next().images.size(0);
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    r.seconds = elapsed;
    r.images_per_second = r.images / elapsed;
    std::cout << ds->describe() << ": " << ds->height() << "x" << ds->width() << ", batch " << config.batch_size
              << ", workers " << config.workers << ", flip " << (config.flip ? "on" : "off") << "\n"
              << "loader: " << r.images << " images in " << elapsed << " s = " << r.images_per_second
              << " images/s\n";
  } catch (...) {
    if (!tmp_dir.empty()) fs::remove_all(tmp_dir);
    throw;
  }
  if (!tmp_dir.empty()) fs::remove_all(tmp_dir);
  return r;
}

}  // namespace hamgan
