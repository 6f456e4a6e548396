// check_dataset_fits: data that does not fit the model is named with what was
// found, what was expected and the fix, before any training step.
#include <fstream>

#include "core/errors.h"
#include "data/dataset_checks.h"
#include "data/hdf5_writer.h"
#include "data/image_io.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

// An HDF5 file of grey side x side images with these labels.
std::string write_hdf5(const std::string& path, int64_t side, const std::vector<int64_t>& labels) {
  const auto n = static_cast<int64_t>(labels.size());
  const torch::Tensor imgs = torch::randint(0, 256, {n, 1, side, side}, torch::kUInt8);
  Hdf5Writer w(path, 1, side, side);
  w.append(imgs.data_ptr<uint8_t>(), labels.data(), n);
  w.finish(*std::max_element(labels.begin(), labels.end()) + 1);
  return path;
}

std::vector<int64_t> cycle(int64_t n, int64_t classes) {
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < n; ++i) labels.push_back(i % classes);
  return labels;
}

std::string error_of(const std::string& path, int64_t resolution, int64_t channels, int64_t num_classes,
                     int64_t open_size = 32) {
  DatasetSpec spec;
  spec.path = path;
  spec.size = open_size;
  spec.channels = channels;
  const auto ds = open_dataset(spec);
  try {
    check_dataset_fits(*ds, resolution, channels, num_classes, path);
  } catch (const DataError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    return msg;
  }
  return "";
}

TEST(DatasetChecks, ImagesOfAnotherSizeNameTheFileBothSizesAndTheFix) {
  const auto dir = test::fresh_dir("checks_size");
  const std::string f = write_hdf5(dir + "/30px.hdf5", 30, cycle(20, 10));
  const std::string msg = error_of(f, 32, 1, 10);
  EXPECT_NE(msg.find(f), std::string::npos) << msg;
  EXPECT_NE(msg.find("images are 30x30 but the model's resolution is 32 (32x32)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("hamgan prepare --input IMAGES --size 32"), std::string::npos) << msg;
  EXPECT_EQ(error_of(write_hdf5(dir + "/32px.hdf5", 32, cycle(20, 10)), 32, 1, 10), "");
}

TEST(DatasetChecks, FoldersResizedOnLoadPass) {
  const auto dir = test::fresh_dir("checks_folder");
  for (const char* cls : {"a", "b"}) {
    std::filesystem::create_directories(dir + "/train/" + cls);
    save_png(torch::randint(0, 256, {3, 30, 30}, torch::kUInt8), dir + "/train/" + cls + "/x.png");
  }
  EXPECT_EQ(error_of(dir + "/train", 32, 3, 2, /*open_size=*/32), "");
  // Opened at another size it is named, with the folder's own fix.
  const std::string msg = error_of(dir + "/train", 32, 3, 2, /*open_size=*/30);
  EXPECT_NE(msg.find("open it with size = 32"), std::string::npos) << msg;
}

TEST(DatasetChecks, ChannelsThatDifferAreNamed) {
  const auto dir = test::fresh_dir("checks_channels");
  const std::string f = write_hdf5(dir + "/grey.hdf5", 32, cycle(20, 10));
  DatasetSpec spec;
  spec.path = f;
  const auto ds = open_dataset(spec);  // its own single channel
  try {
    check_dataset_fits(*ds, 32, 3, 10, f);
    FAIL() << "accepted 1-channel images for a 3-channel model";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("images have 1 channel(s) but the model's image_channels is 3"),
              std::string::npos)
        << e.what();
  }
}

TEST(DatasetChecks, AStrayLabelIsNamedWithItsIndexAndTheValidRange) {
  const auto dir = test::fresh_dir("checks_stray");
  std::vector<int64_t> labels = cycle(20, 10);
  labels[13] = 5000;
  const std::string f = write_hdf5(dir + "/stray.hdf5", 32, labels);
  const std::string msg = error_of(f, 32, 1, 10);
  EXPECT_NE(msg.find(f), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 example(s) have labels up to 5000 (the first at index 13)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[0, 10)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("stray"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("num_classes = 5001"), std::string::npos) << msg;  // one bad label is not 5001 classes
}

TEST(DatasetChecks, DataWithMoreRealClassesSuggestsNumClasses) {
  const auto dir = test::fresh_dir("checks_classes");
  const std::string f = write_hdf5(dir + "/100.hdf5", 32, cycle(300, 100));
  const std::string msg = error_of(f, 32, 1, 10);
  EXPECT_NE(msg.find("270 example(s) have labels up to 99 (the first at index 10, label 99 at index 99)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("set num_classes = 100"), std::string::npos) << msg;
  EXPECT_EQ(error_of(f, 32, 1, 100), "");
  EXPECT_EQ(error_of(f, 32, 1, 1000), "");  // a model with spare classes is fine
}

}  // namespace
}  // namespace hamgan
