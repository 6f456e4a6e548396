// Data sets that other tools write in ways that used to be read wrongly or
// reported in many lines: a ZIP with a repeated member name, a ZIP of mixed
// sizes, a label of 1,000,000 in data-info, a --shuffle_seed beyond 64 bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "data/data_info.h"
#include "data/dataset.h"
#include "data/hdf5_writer.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

// Writes a dataset_tool ZIP with Python's zipfile (which allows a repeated
// name); `members` is Python: a list of (name, side, grey level).
bool write_zip(const std::string& path, const std::string& members, const std::string& labels_json) {
  const std::string script =
      "import io, sys, zipfile, warnings\n"
      "from PIL import Image\n"
      "warnings.simplefilter('ignore')\n"
      "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
      "    for name, side, level in " + members + ":\n"
      "        b = io.BytesIO(); Image.new('RGB', (side, side), (level,) * 3).save(b, format='png')\n"
      "        z.writestr(name, b.getvalue())\n"
      "    z.writestr('dataset.json', '" + labels_json + "')\n";
  const std::string py = path + ".py";
  std::FILE* f = std::fopen(py.c_str(), "w");
  if (!f) return false;
  std::fputs(script.c_str(), f);
  std::fclose(f);
  return test::run_command(HAMGAN_PYTHON " " + py + " " + path) == 0;
}

std::string open_error(const std::string& path, int64_t read_index = -1) {
  DatasetSpec spec;
  spec.path = path;
  try {
    auto ds = open_dataset(spec);
    if (read_index >= 0) ds->get(read_index);
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

// Before: the two entries named 00000/img00000001.png were two images, the
// second labelled 0 (EDM's reader keeps only the last entry of a name).
TEST(DataReliability, AZipWithARepeatedMemberNameIsRefusedNamingIt) {
  const std::string dir = test::scratch_dir("reliability", "zip_duplicate"), path = dir + "/dup.zip";
  if (!write_zip(path, "[('00000/img00000000.png', 4, 10), ('00000/img00000001.png', 4, 20), "
                       "('00000/img00000001.png', 4, 30)]",
                 R"({"labels": [["00000/img00000000.png", 1], ["00000/img00000001.png", 2]]})"))
    REFERENCE_MISSING("Python with PIL cannot write the archive");
  EXPECT_EQ(open_error(path),
            path + ": member 00000/img00000001.png appears twice (entries 1 and 2); rebuild the archive with each name "
                   "once, e.g. extract it with 'python -m zipfile -e' (the last copy wins, as in EDM's reader) and zip "
                   "the folder again");
}

// Before: the error suggested --transform, which only `prepare` takes.
TEST(DataReliability, AZipOfMixedSizesNamesTheWholePrepareCommand) {
  const std::string dir = test::scratch_dir("reliability", "zip_mixed"), path = dir + "/mixed.zip";
  if (!write_zip(path, "[('00000/img00000000.png', 16, 10), ('00000/img00000001.png', 24, 20)]",
                 R"({"labels": null})"))
    REFERENCE_MISSING("Python with PIL cannot write the archive");
  const std::string e = open_error(path, 1);
  EXPECT_NE(e.find("convert it with 'hamgan prepare --input " + path + " --output " + dir +
                   "/mixed_16.zip --size 16 --transform center-crop-dhariwal'"),
            std::string::npos)
      << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

// Before: 100,001 lines, one per ten classes up to the stray label.
TEST(DataReliability, DataInfoListsAThousandClassesAndSumsUpTheRest) {
  const std::string dir = test::scratch_dir("reliability", "huge_label"), path = dir + "/huge.hdf5";
  {
    Hdf5Writer w(path, 1, 2, 2);
    const uint8_t pixels[12] = {0};
    const int64_t labels[3] = {0, 3, 1000000};
    w.append(pixels, labels, 3);
    w.finish(1000001);
  }
  DataInfoConfig cfg;
  cfg.source.path = path;
  cfg.grid = "";
  testing::internal::CaptureStdout();
  const DataInfo info = data_info(cfg);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(info.num_classes, 1000001);
  EXPECT_LT(std::count(out.begin(), out.end(), '\n'), 110) << out.substr(0, 400);
  EXPECT_NE(out.find("\n    990: 0 0 0 0 0 0 0 0 0 0\n"), std::string::npos);  // the last listed row
  EXPECT_NE(out.find("\n    ... 999001 more classes not listed (1 of them hold images; the largest label is "
                     "1000000)\n"),
            std::string::npos)
      << out.substr(out.size() > 300 ? out.size() - 300 : 0);
}

// Before: 2^63 was accepted (and read as 0), while 2^64 said "must be >= 0".
TEST(DataReliability, AShuffleSeedBeyond63BitsNamesTheValidRange) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
  const std::string dir = test::scratch_dir("reliability", "seed_range");
  for (const std::string seed : {"9223372036854775808", "18446744073709551616", "-1"}) {
    int status = 0;
    const std::string out =
        test::run_hamgan("prepare --output " + dir + "/o.hdf5 --shuffle --shuffle_seed " + seed, &status);
    EXPECT_EQ(status, 1) << out;
    EXPECT_EQ(out, "hamgan: error: --shuffle_seed: " + seed +
                       " is out of range; it must be in [0, 9223372036854775807]\n");
  }
}

}  // namespace
}  // namespace hamgan
