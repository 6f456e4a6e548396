// `prepare --format zip` read back by Python's zipfile, PIL and json the way
// dataset_tool.py's consumers read it: member names, stored members, CRCs,
// pixels, labels and dataset.json's exact text; ZIP64 past 65535 members; the
// format chosen from the output name; no output left behind on failure.
#include <algorithm>
#include <fstream>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/prepare.h"
#include "data/zip_writer.h"
#include "tests/common/data_test_util.h"
#include "tests/common/python_reference.h"

namespace hamgan {
namespace {

namespace fs = std::filesystem;

std::string shape_args(const std::string& stem) {
  int64_t n, c, h, w;
  std::ifstream(stem + ".shape") >> n >> c >> h >> w;
  return std::to_string(n) + " " + std::to_string(c) + " " + std::to_string(h) + " " + std::to_string(w);
}

std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& e : fs::directory_iterator(dir))
    if (e.path().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
  return out;
}

TEST(ZipWrite, PrepareWritesWhatDatasetToolWritesAndPythonReadsItBack) {
  const auto dir = test::fresh_dir("zip_write");
  RUN_REFERENCE("zip_reference.py", "make " + dir);
  for (const char* name : {"rgb", "gray"}) {
    SCOPED_TRACE(name);
    PrepareConfig cfg;
    cfg.source.path = dir + "/" + name + ".zip";
    cfg.output = dir + "/out_" + name + ".zip";  // .zip: format auto picks zip
    cfg.progress = false;
    const auto result = prepare_dataset(cfg);
    const auto stem = dir + "/" + name;
    RUN_REFERENCE("zip_reference.py", "check " + cfg.output + " " + stem + " " + shape_args(stem));
    // And our own reader gives back what the source held.
    DatasetSpec back;
    back.path = cfg.output;
    auto a = open_dataset(cfg.source), b = open_dataset(back);
    ASSERT_EQ(b->size(), a->size());
    EXPECT_EQ(result.written, a->size());
    EXPECT_EQ(b->num_classes(), a->num_classes());
    for (int64_t i = 0; i < a->size(); ++i) EXPECT_TRUE(torch::equal(a->get(i).image, b->get(i).image)) << i;
  }
  EXPECT_TRUE(leftovers(dir).empty());
}

TEST(ZipWrite, Zip64RecordsPast65535MembersReadByPythonAndLibzip) {
  const auto dir = test::fresh_dir("zip64");
  const int64_t n = 65540;  // with dataset.json, more entries than a 16-bit count holds
  torch::manual_seed(4);
  auto imgs = torch::randint(0, 256, {n, 1, 1, 1}, torch::kUInt8);
  auto labels = torch::remainder(torch::arange(n, torch::kInt64) * 7, 5);
  {
    ZipWriter writer(dir + "/big.zip", 1, 1, 1);
    writer.append(imgs.data_ptr<uint8_t>(), labels.data_ptr<int64_t>(), n / 2);
    writer.append(imgs.data_ptr<uint8_t>() + n / 2, labels.data_ptr<int64_t>() + n / 2, n - n / 2);
    EXPECT_EQ(writer.count(), n);
    writer.finish(5);
  }
  test::write_raw(dir + "/big.imgs", imgs);
  test::write_raw(dir + "/big.labels", labels);
  RUN_REFERENCE("zip_reference.py", "check " + dir + "/big.zip " + dir + "/big 65540 1 1 1");
  DatasetSpec s;
  s.path = dir + "/big.zip";
  auto ds = open_dataset(s);
  ASSERT_EQ(ds->size(), n);
  EXPECT_EQ(ds->num_classes(), 5);
  for (int64_t i : {int64_t(0), int64_t(65535), n - 1}) {
    EXPECT_EQ(ds->label(i), labels[i].item<int64_t>());
    EXPECT_TRUE(torch::equal(ds->get(i).image, imgs[i])) << i;
  }
}

TEST(ZipWrite, MemberNamesFollowDatasetTool) {
  // f'{idx:08d}', then f'{idx_str[:5]}/img{idx_str}.png', also past 8 digits.
  EXPECT_EQ(ZipWriter::member_name(0), "00000/img00000000.png");
  EXPECT_EQ(ZipWriter::member_name(123456), "00123/img00123456.png");
  EXPECT_EQ(ZipWriter::member_name(123456789), "12345/img123456789.png");
}

TEST(ZipWrite, FormatFollowsTheOutputNameAndMismatchesAreRefused) {
  const auto dir = test::fresh_dir("zip_format");
  RUN_REFERENCE("zip_reference.py", "make " + dir);
  PrepareConfig cfg;
  cfg.source.path = dir + "/gray.zip";
  cfg.progress = false;
  cfg.output = dir + "/as_hdf5.hdf5";
  prepare_dataset(cfg);
  std::ifstream in(cfg.output, std::ios::binary);
  char sig[4] = {0};
  in.read(sig, 4);
  EXPECT_EQ(std::string(sig + 1, 3), "HDF");  // not a ZIP: the default stays HDF5
  for (auto [format, output, compression] :
       {std::tuple{"hdf5", "x.zip", "none"}, std::tuple{"zip", "x.hdf5", "none"}, std::tuple{"auto", "x.zip", "gzip"}}) {
    cfg.format = format;
    cfg.output = dir + "/" + output;
    cfg.compression = compression;
    EXPECT_THROW(prepare_dataset(cfg), ConfigError) << format << " " << output << " " << compression;
    EXPECT_FALSE(fs::exists(cfg.output));
  }
  cfg.format = "zip";
  cfg.compression = "none";
  cfg.output = dir + "/named.data";  // --format zip takes any other name
  prepare_dataset(cfg);
  DatasetSpec s;
  s.path = cfg.output;
  EXPECT_EQ(open_dataset(s)->size(), 25);
  EXPECT_TRUE(leftovers(dir).empty());
}

TEST(ZipWrite, FailedPrepareLeavesNoZipBehind) {
  const auto dir = test::fresh_dir("zip_fail");
  fs::create_directories(dir + "/src/cls");
  // Valid JPEG signature, nothing after it: kept at open, fails to decode.
  std::ofstream(dir + "/src/cls/cut.jpg", std::ios::binary) << std::string("\xFF\xD8\xFF\xE0", 4);
  PrepareConfig cfg;
  cfg.source.path = dir + "/src";
  cfg.source.quiet = true;
  cfg.output = dir + "/out.zip";
  cfg.progress = false;
  EXPECT_THROW(prepare_dataset(cfg), DataError);
  EXPECT_FALSE(fs::exists(cfg.output));
  EXPECT_TRUE(leftovers(dir).empty());
}

TEST(ZipWrite, CliPreparesZipAndRefusesHdf5OptionsInOneLine) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  const auto dir = test::fresh_dir("zip_cli");
  RUN_REFERENCE("zip_reference.py", "make " + dir);
  auto ok = test::run_cli("prepare --input " + dir + "/rgb.zip --output " + dir + "/cli.zip --no_progress", dir);
  ASSERT_EQ(ok.status, 0) << ok.err;
  RUN_REFERENCE("zip_reference.py", "check " + dir + "/cli.zip " + dir + "/rgb " + shape_args(dir + "/rgb"));
  auto bad = test::run_cli("prepare --input " + dir + "/rgb.zip --output " + dir + "/c.zip --compression lzf", dir);
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("--compression lzf applies to HDF5 output"), std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

}  // namespace
}  // namespace hamgan
