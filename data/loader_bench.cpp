#include "data/loader_bench.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/errors.h"
#include "data/hdf5_common.h"
#include "data/image_sink.h"

namespace hamgan {
namespace {

// Photograph-like pixels, so compression finds what it finds in real images:
// smooth colour fields (a few random waves) plus sensor-like noise. Labels
// random, or in class order (1000 classes) as BigGAN's files store them.
void write_synthetic(const LoaderBenchConfig& c, const std::string& path) {
  auto writer = open_image_sink({c.format, path, c.format == "zip" ? "none" : c.compression}, path, 3, c.size,
                                c.size, c.synthetic_count);
  torch::manual_seed(0);
  const auto grid = torch::linspace(0, 1, c.size);
  const auto y = grid.view({1, 1, -1, 1}), x = grid.view({1, 1, 1, -1});
  for (int64_t s = 0; s < c.synthetic_count; s += 500) {
    const int64_t n = std::min<int64_t>(500, c.synthetic_count - s);
    auto img = torch::full({n, 3, c.size, c.size}, 128.0);
    for (int wave = 0; wave < 4; ++wave) {
      const auto r = torch::rand({6, n, 3, 1, 1});
      img += 60 * r[0] * torch::sin(2 * M_PI * (4 * r[1] * y + 4 * r[2] * x + r[3])) * (r[4] - 0.5);
    }
    img += 3 * torch::randn({n, 3, c.size, c.size});
    auto bytes = img.round().clamp(0, 255).to(torch::kUInt8).contiguous();
    auto labels = c.class_sorted ? (torch::arange(s, s + n) * 1000).div(c.synthetic_count, "floor")
                                 : torch::randint(0, 1000, {n}, torch::kInt64);
    writer->append(bytes.data_ptr<uint8_t>(), labels.contiguous().data_ptr<int64_t>(), n);
  }
  writer->finish(1000);
}

std::string synthetic_format(const LoaderBenchConfig& c) { return c.format == "zip" ? "zip" : "hdf5"; }

void write_json(const LoaderBenchConfig& c, const LoaderBenchResult& r, const Dataset& ds) {
  nlohmann::json j = {{"bench", "data"},
                      {"dataset", ds.describe()},
                      {"synthetic", c.path.empty()},
                      {"format", c.path.empty() ? synthetic_format(c) : "as stored"},
                      {"compression", c.path.empty() && c.format != "zip" ? c.compression : "as stored"},
                      {"class_sorted", c.class_sorted},
                      {"image", {ds.channels(), ds.height(), ds.width()}},
                      {"examples", ds.size()},
                      {"chunk_rows", ds.chunk_rows()},
                      {"batch_size", c.batch_size},
                      {"workers", c.workers},
                      {"shuffle_window", c.shuffle_window},
                      {"flip", c.flip},
                      {"in_memory", c.in_memory},
                      {"cores", std::thread::hardware_concurrency()},
                      {"seconds", r.seconds},
                      {"images", r.images},
                      {"images_per_second", r.images_per_second},
                      {"chunk_decompressions", r.decompressions},
                      {"peak_chunks_in_memory", r.peak_chunks},
                      {"file_bytes", r.file_bytes},
                      {"raw_bytes", r.raw_bytes}};
  std::ofstream f(c.out);
  if (!(f << j.dump(2) << "\n")) throw Error(c.out + ": cannot write the result");
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
    path = (tmp_dir / ("synthetic." + synthetic_format(config))).string();
    std::cout << "writing " << config.synthetic_count << " synthetic " << config.size << "x" << config.size
              << " images (" << synthetic_format(config) << ", " << config.compression << (config.class_sorted ? ", class-sorted" : "") << ") to "
              << path << "\n";
    write_synthetic(config, path);
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
    opt.shuffle_window = config.shuffle_window;
    DataLoader loader(ds, opt);
    loader.next();  // warm-up: threads started, first order drawn
    const int64_t decompressed_before = hdf5::chunk_decompressions();
    const auto t0 = std::chrono::steady_clock::now();
    double elapsed = 0;
    while (elapsed < config.seconds) {
      r.images += loader.next().images.size(0);
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    r.seconds = elapsed;
    r.images_per_second = r.images / elapsed;
    r.decompressions = hdf5::chunk_decompressions() - decompressed_before;
    r.peak_chunks = loader.peak_chunks();
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) r.file_bytes = fs::file_size(path, ec);
    r.raw_bytes = uint64_t(ds->size()) * ds->channels() * ds->height() * ds->width();
    std::cout << ds->describe() << ": " << ds->height() << "x" << ds->width() << ", batch " << config.batch_size
              << ", workers " << config.workers << ", flip " << (config.flip ? "on" : "off") << ", "
              << (ds->chunk_rows() > 0 && config.shuffle_window > 0
                      ? "windows of " + std::to_string(config.shuffle_window) + " chunks of " +
                            std::to_string(ds->chunk_rows())
                      : std::string("full shuffle"))
              << "\nloader: " << r.images << " images in " << elapsed << " s = " << r.images_per_second
              << " images/s; " << r.decompressions << " chunk decompressions, at most " << r.peak_chunks
              << " chunks in memory\n";
    if (r.file_bytes)
      std::cout << "file: " << r.file_bytes / 1e6 << " MB for " << r.raw_bytes / 1e6 << " MB of pixels\n";
    if (!config.out.empty()) write_json(config, r, *ds);
  } catch (...) {
    if (!tmp_dir.empty()) fs::remove_all(tmp_dir);
    throw;
  }
  if (!tmp_dir.empty()) fs::remove_all(tmp_dir);
  return r;
}

}  // namespace hamgan
