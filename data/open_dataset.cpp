// open_dataset: picks the format from the path (data/formats.h has one opener per format).
#include <filesystem>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/formats.h"
#include "data/image_transform.h"
#include "data/zip_archive.h"

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
  check_transform_name(spec.transform);
  // Sources that store images at one fixed size have no crop to choose.
  const auto fixed_size = [&](const char* format) {
    if (spec.transform != kTransformDefault)
      throw ConfigError("data: " + spec.path + " is " + format + ", which keeps its images as stored; --transform " +
                        spec.transform + " applies to image folders and ZIP archives only");
  };
  std::shared_ptr<Dataset> ds;
  const auto ext = fs::path(spec.path).extension();
  if (fs::is_directory(status)) {
    const bool idx = looks_like_idx_dir(spec.path);
    if (idx) fixed_size("an IDX folder");
    ds = idx ? open_idx_dataset(spec) : open_image_folder_dataset(spec);
  } else if (ext == ".hdf5" || ext == ".h5" || ext == ".hdf" || looks_like_hdf5(spec.path)) {
    fixed_size("an HDF5 file");
    ds = open_hdf5_dataset(spec);
  } else if (ext == ".zip" || looks_like_zip(spec.path)) {
    ds = open_zip_dataset(spec);
  } else {
    throw DataError(spec.path + ": not a dataset (expected " + dataset_format_list() + ")");
  }
  return with_channels(std::move(ds), spec.channels);
}

}  // namespace hamgan
