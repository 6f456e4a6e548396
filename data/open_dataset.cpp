// open_dataset: picks the format from the path (data/formats.h has one opener per format).
#include <filesystem>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/formats.h"

namespace hamgan {

std::shared_ptr<Dataset> open_dataset(const DatasetSpec& spec) {
  namespace fs = std::filesystem;
  if (spec.channels != 0 && spec.channels != 1 && spec.channels != 3)
    throw ConfigError("data: channels must be 0 (the source's own), 1 or 3, got " +
                      std::to_string(spec.channels));
  if (spec.size < 1 || spec.size > 4096)
    throw ConfigError("data: size must be between 1 and 4096, got " + std::to_string(spec.size));
  std::error_code ec;
  const auto status = fs::status(spec.path, ec);
  if (ec || !fs::exists(status)) throw DataError(spec.path + ": no such file or directory");
  std::shared_ptr<Dataset> ds;
  if (fs::is_directory(status)) {
    ds = looks_like_idx_dir(spec.path) ? open_idx_dataset(spec) : open_image_folder_dataset(spec);
  } else if (const auto ext = fs::path(spec.path).extension();
             ext == ".hdf5" || ext == ".h5" || ext == ".hdf" || looks_like_hdf5(spec.path)) {
    ds = open_hdf5_dataset(spec);
  } else {
    throw DataError(spec.path +
                    ": not a dataset (expected an HDF5 file, an IDX folder or an image folder)");
  }
  return with_channels(std::move(ds), spec.channels);
}

}  // namespace hamgan
