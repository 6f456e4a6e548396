// ZIP datasets written by Python exactly as StyleGAN2-ADA's and EDM's
// dataset_tool.py write them: every byte and label as PIL and json read them,
// reads from several threads at once, and one-line errors for bad archives.
#include <fstream>
#include <thread>

#include "core/errors.h"
#include "data/dataset.h"
#include "tests/common/data_test_util.h"
#include "tests/common/python_reference.h"

namespace hamgan {
namespace {

struct Expected {
  int64_t n = 0, c = 0, h = 0, w = 0, classes = 0;
  torch::Tensor imgs, labels;
};

Expected expected(const std::string& stem) {
  Expected e;
  std::ifstream(stem + ".shape") >> e.n >> e.c >> e.h >> e.w >> e.classes;
  e.imgs = test::read_raw(stem + ".imgs", {e.n, e.c, e.h, e.w}, torch::kUInt8);
  e.labels = test::read_raw(stem + ".labels", {e.n}, torch::kInt64);
  return e;
}

std::shared_ptr<Dataset> open_path(const std::string& path, const std::string& transform = "default") {
  DatasetSpec s;
  s.path = path;
  s.transform = transform;
  return open_dataset(s);
}

// The largest absolute difference between two uint8 images.
int64_t max_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kInt) - b.to(torch::kInt)).abs().max().item<int64_t>();
}

TEST(ZipRead, DatasetToolArchivesLoadWithEveryByteAndLabel) {
  const auto dir = test::fresh_dir("zip_read");
  RUN_REFERENCE("zip_reference.py", "make " + dir);
  for (const char* name : {"rgb", "gray"}) {
    SCOPED_TRACE(name);
    const auto want = expected(dir + "/" + name);
    auto ds = open_path(dir + "/" + name + ".zip");
    ASSERT_EQ(ds->size(), want.n);
    EXPECT_EQ(ds->channels(), want.c);
    EXPECT_EQ(ds->height(), want.h);
    EXPECT_EQ(ds->width(), want.w);
    EXPECT_EQ(ds->num_classes(), want.classes);
    for (int64_t i = 0; i < want.n; ++i) {
      EXPECT_EQ(ds->label(i), want.labels[i].item<int64_t>()) << i;
      auto ex = ds->get(i);
      EXPECT_EQ(ex.label, want.labels[i].item<int64_t>()) << i;
      EXPECT_TRUE(torch::equal(ex.image, want.imgs[i])) << i;
    }
  }
}

TEST(ZipRead, SortedNamesLabelsByNameAndPngVariantsDeflatedOrNot) {
  const auto dir = test::fresh_dir("zip_mixed");
  RUN_REFERENCE("zip_reference.py", "make " + dir);
  const auto want = expected(dir + "/mixed");
  int64_t jpeg = -1;
  std::ifstream(dir + "/mixed.jpeg_index") >> jpeg;
  auto ds = open_path(dir + "/mixed.zip");
  ASSERT_EQ(ds->size(), want.n);  // the directory entry and README.txt are not images
  EXPECT_EQ(ds->num_classes(), want.classes);
  for (int64_t i = 0; i < want.n; ++i) {
    auto ex = ds->get(i);
    EXPECT_EQ(ex.label, want.labels[i].item<int64_t>()) << i;
    // PNG (palette, RGBA, deflated members) is exact; the JPEG goes through
    // another libjpeg-turbo build than PIL's and may differ by one level.
    EXPECT_LE(max_diff(ex.image, want.imgs[i]), i == jpeg ? 1 : 0) << i;
  }
}

TEST(ZipRead, ConcurrentReadsFromManyThreadsAgree) {
  const auto dir = test::fresh_dir("zip_threads");
  RUN_REFERENCE("zip_reference.py", "make " + dir);
  const auto want = expected(dir + "/rgb");
  auto ds = open_path(dir + "/rgb.zip");
  std::vector<std::thread> threads;
  std::vector<int64_t> wrong(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round)
        for (int64_t i = (t + round) % want.n; i < want.n; i += 3) {
          std::vector<uint8_t> pixels(want.c * want.h * want.w);
          int64_t label = -1;
          ds->get_batch({i}, pixels.data(), &label);
          auto img = torch::from_blob(pixels.data(), {want.c, want.h, want.w}, torch::kUInt8);
          if (!torch::equal(img, want.imgs[i]) || label != want.labels[i].item<int64_t>()) ++wrong[t];
        }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

// Opening and reading every example fails with one line naming the archive and `needle`.
void expect_data_error(const std::string& path, const std::string& needle) {
  SCOPED_TRACE(path);
  try {
    auto ds = open_path(path);
    for (int64_t i = 0; i < ds->size(); ++i) ds->get(i);  // some damage shows only when reading
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(ZipRead, BadArchivesGiveOneLineErrors) {
  const auto dir = test::fresh_dir("zip_bad");
  RUN_REFERENCE("zip_reference.py", "make-bad " + dir);
  EXPECT_EQ(open_path(dir + "/ok.zip")->num_classes(), 3);  // the unbroken original reads
  const std::pair<const char*, const char*> cases[] = {
      {"missing_member", "labels 00000/img00000002.png, which is not a PNG or JPEG member"},
      {"unlabelled", "no label for 00000/img00000002.png"},
      {"mixed_sizes", "00000/img00000001.png: 3x24x24 (CxHxW) but the first image"},
      {"mixed_channels", "00000/img00000001.png: 1x16x16 (CxHxW) but the first image"},
      {"float_label", "the label of 00000/img00000000.png is 1.5, not a class index"},
      {"vector_label", "not a class index"},
      {"negative_label", "is -1, not a class index"},
      {"bad_json", "dataset.json: not valid JSON"},
      {"no_labels_key", "dataset.json: no \"labels\" key"},
      {"empty", "no PNG or JPEG member"},
      {"only_json", "no PNG or JPEG member"},
      {"not_a_zip", "not a readable ZIP archive"},
      {"not_png", "neither PNG nor JPEG"},
      {"bad_crc", "00000/img00000001.png: member is truncated or corrupt"},
  };
  for (auto [name, needle] : cases) expect_data_error(dir + "/" + name + ".zip", needle);
}

TEST(ZipRead, DetectedByContentWithoutTheExtension) {
  const auto dir = test::fresh_dir("zip_magic");
  RUN_REFERENCE("zip_reference.py", "make " + dir);
  std::filesystem::copy_file(dir + "/gray.zip", dir + "/gray.dataset");
  auto ds = open_path(dir + "/gray.dataset");
  EXPECT_EQ(ds->size(), expected(dir + "/gray").n);
  EXPECT_NE(ds->describe().find("ZIP"), std::string::npos) << ds->describe();
}

}  // namespace
}  // namespace hamgan
