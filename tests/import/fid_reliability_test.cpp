// `hamgan fid` and `fid-stats` on a generator with options that cannot work:
// each is refused before any features, in one line naming the option at fault.
#include <gtest/gtest.h>

#include <chrono>

#include "metrics/npz.h"
#include "tests/import/import_fixture.h"

namespace hamgan {
namespace {

class FidReliability : public test::ImportFixture {
 protected:
  // Exit 1 with one error line, printed before any feature extractor was loaded; the line is returned.
  static std::string refused_before_work(const std::string& args) {
    std::string out;
    EXPECT_EQ(run(args, &out), 1) << out;
    EXPECT_TRUE(test::one_error_line(out)) << out;
    return out;
  }
  // Rows z (rows, 8) and balanced labels, as `hamgan sample --float` writes them.
  static std::string latents(const std::string& name, int64_t rows) {
    const std::string path = dir_ + "/" + name + ".npz";
    write_npz(path, {{"z", torch::randn({rows, 8})}, {"y", torch::arange(rows, torch::kInt64) % 10}}, false);
    return path;
  }
};

// Before: z for 50,000 × 10^9 images was drawn up front: a 51 TB allocation after 3.8 s of loading.
TEST_F(FidReliability, AnAbsurdSampleCountIsRefusedBeforeAnyWork) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string out = refused_before_work("fid " + dir_ + "/run " + dir_ + "/data --repeats 1000000000" + features());
  EXPECT_NE(out.find("--n 50000 × --repeats 1000000000 asks a generator for more than the 10,000,000 images"),
            std::string::npos)
      << out;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
  out = refused_before_work("fid-stats " + dir_ + "/run --out " + dir_ + "/huge.npz --n 20000000" + features());
  EXPECT_NE(out.find("--n 20000000 asks a generator for more than"), std::string::npos) << out;
}

// Before: an empty file became --n 0 ("meaningless for a generator checkpoint"), and 3 rows for
// --repeats 2 were "6 images asked for (--n, times --repeats); drop --n": an --n nobody gave.
TEST_F(FidReliability, LatentsWithoutRowsOrTooFewForTheRepeatsAreNamedAsSuch) {
  const std::string empty = latents("empty", 0);
  std::string out = refused_before_work("fid " + dir_ + "/run " + dir_ + "/data --latents " + empty + features());
  EXPECT_NE(out.find("--latents " + empty + ": y is empty (0 rows)"), std::string::npos) << out;
  EXPECT_EQ(out.find("--n"), std::string::npos) << out;

  const std::string three = latents("three", 3);
  out = refused_before_work("fid " + dir_ + "/run " + dir_ + "/data --repeats 2 --latents " + three + features());
  EXPECT_NE(out.find("--latents " + three + " holds 3 rows, which do not split into --repeats 2 equal seed ranges"),
            std::string::npos)
      << out;
  out = refused_before_work("fid " + dir_ + "/run " + dir_ + "/data --repeats 4 --latents " + three + features());
  EXPECT_NE(out.find("(fewer rows than ranges)"), std::string::npos) << out;
  EXPECT_EQ(out.find("--n"), std::string::npos) << out;

  // Rows that split: each range scores its share of the file.
  std::string ok;
  const std::string eight = latents("eight", 8);
  EXPECT_EQ(run("fid " + dir_ + "/run " + dir_ + "/data --repeats 2 --latents " + eight + features(), &ok), 0) << ok;
  EXPECT_NE(ok.find("FID over 2 seed ranges"), std::string::npos) << ok;
  EXPECT_NE(ok.find("(images 4–7)"), std::string::npos) << ok;
}

// Before: accepted and ignored; the classes were drawn balanced as if it had not been given.
TEST_F(FidReliability, LabelDataWithoutLabelsDatasetIsRefused) {
  std::string out = refused_before_work("fid " + dir_ + "/run " + dir_ + "/data --label_data " + dir_ + "/data" +
                                        features());
  EXPECT_NE(out.find("--label_data " + dir_ + "/data is read only with --labels dataset, not --labels "
                     "balanced; add --labels dataset or drop --label_data"),
            std::string::npos)
      << out;
  out = refused_before_work("fid-stats " + dir_ + "/run --out " + dir_ + "/ld.npz --labels random --label_data " +
                            dir_ + "/data" + features());
  EXPECT_NE(out.find("/data is read only with --labels dataset, not --labels random"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace hamgan
