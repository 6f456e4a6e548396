#include "data/dataset_checks.h"

#include <filesystem>
#include <unordered_set>

#include "core/errors.h"

namespace hamgan {
namespace {

void check_geometry(const Dataset& ds, int64_t resolution, int64_t channels, const std::string& source) {
  const std::string r = std::to_string(resolution);
  if (ds.height() != resolution || ds.width() != resolution) {
    std::error_code ec;
    const std::string fix =
        std::filesystem::is_directory(source, ec)
            ? "open it with size = " + r + " (image folders and IDX data are resized on load)"
            : "HDF5 files keep the size they were written at: re-create it from the original images with "
              "'hamgan prepare --input IMAGES --size " + r + " --output FILE.hdf5', or set resolution to match";
    throw DataError(ds.describe() + ": images are " + std::to_string(ds.height()) + "x" + std::to_string(ds.width()) +
                    " but the model's resolution is " + r + " (" + r + "x" + r + "); " + fix);
  }
  if (channels > 0 && ds.channels() != channels)
    throw DataError(ds.describe() + ": images have " + std::to_string(ds.channels()) +
                    " channel(s) but the model's image_channels is " + std::to_string(channels) +
                    "; open the data with channels = " + std::to_string(channels) +
                    " (converted on load) or set image_channels = " + std::to_string(ds.channels()));
}

void check_labels(const Dataset& ds, int64_t num_classes) {
  if (ds.num_classes() <= num_classes) return;  // every reader checks labels against its own class count
  int64_t outside = 0, first = -1, largest = -1, largest_at = -1;
  std::unordered_set<int64_t> distinct;
  for (int64_t i = 0; i < ds.size(); ++i) {
    const int64_t label = ds.label(i);
    if (label < 0)
      throw DataError(ds.describe() + ": label " + std::to_string(label) + " at index " + std::to_string(i) +
                      " is negative; labels must lie in [0, " + std::to_string(num_classes) + ")");
    distinct.insert(label);
    if (label < num_classes) continue;
    if (outside++ == 0) first = i;
    if (label > largest) largest = label, largest_at = i;
  }
  if (outside == 0) return;  // the data declares more classes than it uses
  const std::string range = "[0, " + std::to_string(num_classes) + ")";
  std::string msg = ds.describe() + ": " + std::to_string(outside) + " example(s) have labels up to " +
                    std::to_string(largest) + " (the first at index " + std::to_string(first) +
                    (largest_at != first ? ", label " + std::to_string(largest) + " at index " +
                                               std::to_string(largest_at)
                                         : std::string()) +
                    "), outside the model's classes " + range + " (num_classes = " + std::to_string(num_classes) +
                    "); ";
  // Labels that cover most of 0..largest are real classes; a few far-off values are stray.
  const uint64_t span = static_cast<uint64_t>(largest) + 1;  // largest >= num_classes >= 0 here
  if (2 * static_cast<uint64_t>(distinct.size()) >= span)
    msg += "set num_classes = " + std::to_string(span) + " if the data has that many classes, or keep only " +
           "examples labelled in " + range;
  else
    msg += "the data uses only " + std::to_string(distinct.size()) + " distinct labels, so these look like stray "
           "values: fix or remove those examples (labels must lie in " + range + ")";
  throw DataError(msg);
}

}  // namespace

void check_dataset_fits(const Dataset& dataset, int64_t resolution, int64_t channels, int64_t num_classes,
                        const std::string& source) {
  check_geometry(dataset, resolution, channels, source);
  check_labels(dataset, num_classes);
}

}  // namespace hamgan
