// HDF5: prepare → load round trips, the BigGAN layout checked with h5py,
// files written by h5py (BigGAN NCHW, StudioGAN NHWC) read unchanged, and
// broken files rejected with one-line errors.
#include <zlib.h>

#include <fstream>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/loader.h"
#include "data/prepare.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

namespace fs = std::filesystem;

// A small IDX source of n random 28×28 images and labels in [0, 7).
std::string make_idx_source(const std::string& dir, int64_t n) {
  auto imgs = torch::randint(0, 256, {n, 28, 28}, torch::kUInt8);
  auto labels = torch::randint(0, 7, {n}, torch::kUInt8);
  labels[0] = 6;  // so that num_classes is 7 for sure
  auto write = [](const std::string& p, std::string head, const torch::Tensor& t) {
    head.append(static_cast<const char*>(t.data_ptr()), t.nbytes());
    gzFile f = gzopen(p.c_str(), "wb");
    gzwrite(f, head.data(), unsigned(head.size()));
    gzclose(f);
  };
  const auto be = [](uint32_t v) { return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; };
  write(dir + "/train-images-idx3-ubyte.gz", std::string{0, 0, 8, 3} + be(n) + be(28) + be(28), imgs);
  write(dir + "/train-labels-idx1-ubyte.gz", std::string{0, 0, 8, 1} + be(n), labels);
  return dir;
}

std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& e : fs::directory_iterator(dir))
    if (e.path().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
  return out;
}

TEST(Hdf5, PrepareRoundTripKeepsPixelsAndH5pySeesBigGanLayout) {
  torch::manual_seed(10);
  const auto dir = test::fresh_dir("h5_roundtrip");
  PrepareConfig cfg;
  cfg.source.path = make_idx_source(dir, 1203);  // 3 chunks of 500, the last partial
  cfg.source.channels = 3;
  cfg.output = dir + "/out.hdf5";
  cfg.progress = false;
  const auto result = prepare_dataset(cfg);
  EXPECT_EQ(result.written, 1203);
  EXPECT_EQ(result.skipped, 0);
  EXPECT_TRUE(leftovers(dir).empty());

  auto src = open_dataset(cfg.source);
  DatasetSpec hs;
  hs.path = cfg.output;
  auto h5 = open_dataset(hs);
  ASSERT_EQ(h5->size(), 1203);
  EXPECT_EQ(h5->num_classes(), 7);
  EXPECT_EQ(h5->channels(), 3);
  EXPECT_EQ(h5->height(), 32);
  auto want = torch::empty({1203, 3, 32, 32}, torch::kUInt8);
  auto want_labels = torch::empty({1203}, torch::kInt64);
  for (int64_t i = 0; i < 1203; ++i) {
    auto a = src->get(i), b = h5->get(i);
    want[i].copy_(a.image);
    want_labels[i] = a.label;
    ASSERT_TRUE(torch::equal(a.image, b.image)) << i;
    ASSERT_EQ(a.label, b.label) << i;
  }
  test::write_raw(dir + "/want.imgs", want);
  test::write_raw(dir + "/want.labels", want_labels);
  EXPECT_EQ(test::oracle("h5-check " + cfg.output + " " + dir + "/want.imgs " + dir + "/want.labels 1203 3 32 32 7"),
            0);

  // Batched reads (sorted runs) and the in-memory path agree with get().
  std::vector<int64_t> idx = {1202, 5, 6, 7, 499, 500, 501, 0, 6, 1000};
  auto batch = torch::empty({10, 3, 32, 32}, torch::kUInt8);
  std::vector<int64_t> labels(10);
  hs.in_memory = true;
  auto mem = open_dataset(hs);
  for (auto* ds : {h5.get(), mem.get()}) {
    ds->get_batch(idx, batch.data_ptr<uint8_t>(), labels.data());
    for (size_t k = 0; k < idx.size(); ++k) {
      EXPECT_TRUE(torch::equal(batch[k], want[idx[k]])) << k;
      EXPECT_EQ(labels[k], want_labels[idx[k]].item<int64_t>());
    }
  }
}

TEST(Hdf5, ReadsFilesWrittenByH5pyInBigGanAndStudioGanLayouts) {
  const auto dir = test::fresh_dir("h5_h5py");
  struct Case { const char* layout; int chunks; bool attr; int64_t c; };
  for (auto k : {Case{"NCHW", 500, false, 3}, Case{"NCHW", 0, false, 1}, Case{"NHWC", 500, true, 3},
                 Case{"NHWC", 0, false, 3}}) {
    const std::string f = dir + "/" + k.layout + std::to_string(k.chunks) + ".hdf5";
    ASSERT_EQ(test::oracle("h5-write " + f + " " + k.layout + " 23 " + std::to_string(k.c) + " 9 11 " + f +
                           ".imgs " + f + ".labels " + std::to_string(k.chunks) + " " + (k.attr ? "1" : "0")),
              0);
    auto imgs = test::read_raw(f + ".imgs", {23, k.c, 9, 11}, torch::kUInt8);
    auto labels = test::read_raw(f + ".labels", {23}, torch::kInt64);
    DatasetSpec s;
    s.path = f;
    auto ds = open_dataset(s);
    ASSERT_EQ(ds->size(), 23);
    EXPECT_EQ(ds->channels(), k.c);
    EXPECT_EQ(ds->height(), 9);
    EXPECT_EQ(ds->width(), 11);
    EXPECT_EQ(ds->num_classes(), labels.max().item<int64_t>() + 1);
    for (int64_t i = 0; i < 23; ++i) {
      auto ex = ds->get(i);
      EXPECT_TRUE(torch::equal(ex.image, imgs[i])) << f << " " << i;
      EXPECT_EQ(ex.label, labels[i].item<int64_t>());
    }
  }
}

TEST(Hdf5, PrepareConvertsStudioGanNhwcToBigGanNchw) {
  const auto dir = test::fresh_dir("h5_nhwc");
  const std::string src = dir + "/studiogan.hdf5";
  ASSERT_EQ(test::oracle("h5-write " + src + " NHWC 30 3 8 10 " + src + ".imgs " + src + ".labels 500 0"), 0);
  PrepareConfig cfg;
  cfg.source.path = src;
  cfg.output = dir + "/biggan.hdf5";
  cfg.progress = false;
  EXPECT_EQ(prepare_dataset(cfg).written, 30);
  auto labels = test::read_raw(src + ".labels", {30}, torch::kInt64);
  // h5py sees the same pixels, now NCHW with BigGAN's chunks and attributes.
  EXPECT_EQ(test::oracle("h5-check " + cfg.output + " " + src + ".imgs " + src + ".labels 30 3 8 10 " +
                         std::to_string(labels.max().item<int64_t>() + 1)),
            0);
}

void expect_data_error(const std::string& path, const std::string& needle) {
  try {
    DatasetSpec s;
    s.path = path;
    auto ds = open_dataset(s);
    for (int64_t i = 0; i < ds->size(); ++i) ds->get(i);  // damage may only show when reading
    ADD_FAILURE() << "no error for " << path;
  } catch (const DataError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(Hdf5, BrokenFilesGiveOneLineErrors) {
  const auto dir = test::fresh_dir("h5_bad");
  const std::pair<const char*, const char*> cases[] = {{"no_imgs", "no dataset \"imgs\""},
                                                       {"mismatch", "4 images but \"labels\" has 5"},
                                                       {"label_range", "label 7 at index 2 is outside [0, 3)"},
                                                       {"float_imgs", "uint8"},
                                                       {"rank3", "4-D"}};
  for (auto [kind, needle] : cases) {
    const std::string f = dir + "/" + kind + ".hdf5";
    ASSERT_EQ(test::oracle("h5-bad " + f + " " + kind), 0);
    expect_data_error(f, needle);
  }
  std::ofstream(dir + "/text.hdf5") << "plain text";
  expect_data_error(dir + "/text.hdf5", "not an HDF5 file");

  // A good file cut short.
  torch::manual_seed(11);
  PrepareConfig cfg;
  cfg.source.path = make_idx_source(dir, 600);
  cfg.output = dir + "/good.hdf5";
  cfg.progress = false;
  prepare_dataset(cfg);
  std::ifstream in(cfg.output, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(dir + "/cut.hdf5", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  expect_data_error(dir + "/cut.hdf5", "");
}

TEST(Hdf5, DamagedChunksFailInLoaderThreadsWithOneLineAndNoHdf5Stack) {
  const auto dir = test::fresh_dir("h5_damaged");
  const std::string f = dir + "/damaged.hdf5";
  ASSERT_EQ(test::oracle("h5-damaged " + f), 0);
  DatasetSpec s;
  s.path = f;
  auto ds = open_dataset(s);  // metadata intact
  LoaderOptions o;
  o.batch_size = 500;
  o.workers = 2;
  testing::internal::CaptureStderr();
  std::string msg;
  {
    DataLoader loader(ds, o);
    try {
      for (int i = 0; i < 4; ++i) loader.next();  // two epochs touch every chunk
    } catch (const DataError& e) {
      msg = e.what();
    }
  }
  const std::string printed = testing::internal::GetCapturedStderr();
  // The chunks are checked (Fletcher-32) before they are decompressed, and the line names the images lost.
  EXPECT_NE(msg.find(f + ": images "), std::string::npos) << msg;
  EXPECT_NE(msg.find(" fail their Fletcher-32 checksum"), std::string::npos) << msg;
  EXPECT_EQ(printed, "");  // HDF5's own error stack stays silent in worker threads too
}

TEST(Hdf5, FailedPrepareLeavesNoFileBehind) {
  const auto dir = test::fresh_dir("h5_fail");
  fs::create_directories(dir + "/src/cls");
  std::ofstream(dir + "/src/cls/a.png") << "not an image";
  PrepareConfig cfg;
  cfg.source.path = dir + "/src";
  cfg.output = dir + "/out.hdf5";
  cfg.progress = false;
  EXPECT_THROW(prepare_dataset(cfg), DataError);
  EXPECT_FALSE(fs::exists(cfg.output));
  EXPECT_TRUE(leftovers(dir).empty());
}

}  // namespace
}  // namespace hamgan
