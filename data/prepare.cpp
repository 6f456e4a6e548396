#include "data/prepare.h"

#include <cstring>
#include <iostream>
#include <optional>
#include <vector>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/progress.h"
#include "core/stop_signal.h"
#include "data/block_pipeline.h"
#include "data/epoch_order.h"
#include "data/formats.h"
#include "data/hdf5_common.h"
#include "data/image_sink.h"
#include "data/memory_budget.h"

namespace hamgan {
namespace {

// A damaged chunk of an HDF5 source is a damaged file, not one unreadable
// image to skip: thrown past the pipeline's skip of DataErrors.
struct DamagedSource : Error {
  using Error::Error;
};

// A chunked (compressed) file is read whole before shuffling: single images
// in random order would decompress a chunk each.
std::shared_ptr<Dataset> whole_in_memory(const PrepareConfig& config, const Dataset& ds) {
  const uint64_t bytes = uint64_t(ds.size()) * ds.channels() * ds.height() * ds.width();
  if (!fits_in_memory(bytes))
    throw DataError(config.source.path + ": prepare --shuffle reads a chunked file into memory first and needs " +
                    std::to_string(bytes >> 20) + " MiB, the machine has " + std::to_string(physical_memory_bytes() >> 20) +
                    " MiB; shuffle from the source images instead (prepare --input FOLDER --shuffle)");
  DatasetSpec spec = config.source;
  spec.in_memory = true;
  return open_dataset(spec);
}

}  // namespace

PrepareResult prepare_dataset(const PrepareConfig& config) {
  if (config.output.empty()) throw ConfigError("prepare: --output is required");
  if (config.workers < 1) throw ConfigError("prepare: workers must be >= 1");
  // main() catches stop signals from process start: a stop during the walk
  // of a folder or --shuffle's read ends here, before anything is written.
  const std::string stopped_before = config.output + ": prepare stopped before writing; no output written";
  auto ds = open_dataset(config.source);
  throw_if_stop_requested(stopped_before);
  std::vector<int64_t> order;  // empty: the source's order
  if (config.shuffle) {
    if (ds->chunk_rows() > 0) ds = whole_in_memory(config, *ds);
    throw_if_stop_requested(stopped_before);
    order = permutation(uint64_t(config.shuffle_seed), 0, ds->size());
  }
  const bool damage_is_fatal = looks_like_hdf5(config.source.path);  // folders and ZIPs skip a bad image
  const int64_t n = ds->size(), c = ds->channels(), h = ds->height(), w = ds->width(), per = c * h * w;
  PrepareResult result;
  result.num_classes = ds->num_classes();
  std::string first_error;
  write_atomically(config.output, [&](const std::string& tmp) {
    auto writer = open_image_sink({config.format, config.output, config.compression}, tmp, c, h, w, n);
    std::optional<ProgressBar> bar;
    if (config.progress) bar.emplace("prepare", n, "img");
    // Blocks of one HDF5 chunk, decoded by the workers while this thread
    // writes the block before, appended in order: the file is the same for
    // any thread count (data/block_pipeline.h).
    auto decode = [&](int64_t i, uint8_t* pixels) {
      Example ex;
      try {
        ex = ds->get(order.empty() ? i : order[i]);
      } catch (const DataError& e) {
        if (damage_is_fatal) throw DamagedSource(e.what());
        throw;
      }
      std::memcpy(pixels, ex.image.contiguous().data_ptr<uint8_t>(), per);
      return ex.label;
    };
    auto write_block = [&](DecodedBlock& blk) {
      int64_t good = 0;  // the readable images moved to the front, in order
      for (int64_t i = 0; i < blk.len; ++i) {
        if (!blk.ok[i]) {
          if (result.skipped++ == 0) first_error = blk.errors[i];
          continue;
        }
        if (good != i) {
          std::memcpy(blk.pixels.data() + good * per, blk.pixels.data() + i * per, per);
          blk.labels[good] = blk.labels[i];
        }
        ++good;
      }
      writer->append(blk.pixels.data(), blk.labels.data(), good);
      if (bar) bar->advance(blk.len);
    };
    const BlockPipelineSpec spec{n, per, hdf5::kChunk, config.workers};
    if (!run_block_pipeline(spec, decode, write_block, stop_flag()))
      throw Interrupted(config.output + ": prepare interrupted; no output written");  // exit 130, as a stop
    if (bar) bar->finish();
    result.written = writer->count();
    if (result.written == 0)
      throw DataError(config.source.path + ": no readable image left (" + std::to_string(result.skipped) +
                      " skipped, first: " + first_error + ")");
    writer->finish(result.num_classes);
  });
  forget_stop_request();  // every image is written: a stop that arrives now is too late to save anything
  if (result.skipped)
    std::cerr << "hamgan: warning: skipped " << result.skipped << " unreadable image(s), first: " << first_error
              << "\n";
  std::cout << config.output << ": " << result.written << " images " << c << "x" << h << "x" << w << ", "
            << result.num_classes << " classes (from " << ds->describe() << ")\n";
  return result;
}

}  // namespace hamgan
