#include "data/prepare.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/progress.h"
#include "data/hdf5_common.h"
#include "data/hdf5_writer.h"

namespace hamgan {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted = true; }

// Catches SIGINT/SIGTERM while alive so the temporary file can be removed.
struct InterruptGuard {
  struct sigaction old_int {}, old_term {};
  InterruptGuard() {
    g_interrupted = false;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
};

struct Block {
  std::vector<uint8_t> pixels;  // (n, C, H, W)
  std::vector<int64_t> labels;
  std::vector<char> ok;
  std::vector<std::string> errors;
};

}  // namespace

PrepareResult prepare_dataset(const PrepareConfig& config) {
  if (config.output.empty()) throw ConfigError("prepare: --output is required");
  if (config.workers < 1) throw ConfigError("prepare: workers must be >= 1");
  auto ds = open_dataset(config.source);
  const int64_t n = ds->size(), c = ds->channels(), h = ds->height(), w = ds->width(), per = c * h * w;
  PrepareResult result;
  result.num_classes = ds->num_classes();
  std::string first_error;
  InterruptGuard guard;
  write_atomically(config.output, [&](const std::string& tmp) {
    Hdf5Writer writer(tmp, c, h, w, /*expected_images=*/n, config.compression);
    std::optional<ProgressBar> bar;
    if (config.progress) bar.emplace("prepare", n, "img");
    // Blocks of one HDF5 chunk: decoded in parallel (thread t takes every
    // T-th image), appended in source order, so the file is deterministic.
    const int64_t block = hdf5::kChunk;
    Block blk;
    std::vector<uint8_t> good;
    std::vector<int64_t> good_labels;
    for (int64_t start = 0; start < n; start += block) {
      if (g_interrupted) throw DataError(config.output + ": prepare interrupted; no output written");
      const int64_t len = std::min(block, n - start);
      blk.pixels.resize(len * per);
      blk.labels.assign(len, 0);
      blk.ok.assign(len, 0);
      blk.errors.assign(len, {});
      auto work = [&](int64_t t, int64_t stride) {
        for (int64_t i = t; i < len; i += stride) {
          if (g_interrupted) return;
          try {
            Example ex = ds->get(start + i);
            std::memcpy(blk.pixels.data() + i * per, ex.image.contiguous().data_ptr<uint8_t>(), per);
            blk.labels[i] = ex.label;
            blk.ok[i] = 1;
          } catch (const DataError& e) {
            blk.errors[i] = e.what();
          }
        }
      };
      const int64_t threads = std::min<int64_t>(config.workers, len);
      std::vector<std::thread> pool;
      for (int64_t t = 1; t < threads; ++t) pool.emplace_back(work, t, threads);
      work(0, threads);
      for (auto& th : pool) th.join();
      if (g_interrupted) throw DataError(config.output + ": prepare interrupted; no output written");
      good.clear();
      good_labels.clear();
      for (int64_t i = 0; i < len; ++i) {
        if (blk.ok[i]) {
          good.insert(good.end(), blk.pixels.begin() + i * per, blk.pixels.begin() + (i + 1) * per);
          good_labels.push_back(blk.labels[i]);
        } else if (result.skipped++ == 0) {
          first_error = blk.errors[i];
        }
      }
      writer.append(good.data(), good_labels.data(), static_cast<int64_t>(good_labels.size()));
      if (bar) bar->advance(len);
    }
    if (bar) bar->finish();
    result.written = writer.count();
    if (result.written == 0)
      throw DataError(config.source.path + ": no readable image left (" + std::to_string(result.skipped) +
                      " skipped, first: " + first_error + ")");
    writer.finish(result.num_classes);
  });
  if (result.skipped)
    std::cerr << "hamgan: warning: skipped " << result.skipped << " unreadable image(s), first: " << first_error
              << "\n";
  std::cout << config.output << ": " << result.written << " images " << c << "x" << h << "x" << w << ", "
            << result.num_classes << " classes (from " << ds->describe() << ")\n";
  return result;
}

}  // namespace hamgan
