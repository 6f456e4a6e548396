#include "data/image_sink.h"

#include <filesystem>
#include <utility>

#include "core/errors.h"
#include "data/hdf5_writer.h"
#include "data/zip_writer.h"

namespace hamgan {
namespace {

// Hdf5Writer and ZipWriter share the sink's shape without a common base.
template <typename Writer>
class SinkOf : public ImageSink {
 public:
  explicit SinkOf(Writer writer) : writer_(std::move(writer)) {}
  template <typename... Args>
  explicit SinkOf(std::in_place_t, Args&&... args) : writer_(std::forward<Args>(args)...) {}
  void append(const uint8_t* images, const int64_t* labels, int64_t n) override { writer_.append(images, labels, n); }
  void finish(int64_t num_classes) override { writer_.finish(num_classes); }
  int64_t count() const override { return writer_.count(); }

 private:
  Writer writer_;
};

}  // namespace

std::string output_format(const SinkSpec& config) {
  const std::string ext = std::filesystem::path(config.output).extension().string();
  const bool zip_name = ext == ".zip", hdf5_name = ext == ".hdf5" || ext == ".h5" || ext == ".hdf";
  const std::string format = config.format == "auto" ? (zip_name ? "zip" : "hdf5") : config.format;
  if (format != "hdf5" && format != "zip")
    throw ConfigError("prepare: unknown --format '" + config.format + "'; use auto, hdf5 or zip");
  if ((format == "zip" && hdf5_name) || (format == "hdf5" && zip_name))
    throw ConfigError("prepare: --output " + config.output + " names another format than --format " + format +
                      "; end it in ." + format + " (readers tell the formats apart by that)");
  if (format == "zip" && config.compression != "none")
    throw ConfigError("prepare: --compression " + config.compression +
                      " applies to HDF5 output; a ZIP dataset stores uncompressed PNGs as dataset_tool.py does");
  return format;
}

std::unique_ptr<ImageSink> open_image_sink(const SinkSpec& config, const std::string& write_path, int64_t channels,
                                           int64_t height, int64_t width, int64_t expected_images) {
  if (output_format(config) == "zip")
    return std::make_unique<SinkOf<ZipWriter>>(std::in_place, write_path, channels, height, width);
  return std::make_unique<SinkOf<Hdf5Writer>>(
      Hdf5Writer(write_path, channels, height, width, expected_images, config.compression));
}

}  // namespace hamgan
