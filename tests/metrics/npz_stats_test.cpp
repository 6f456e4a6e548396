// .npz files both ways with numpy, and streamed statistics against np.cov.
#include <gtest/gtest.h>

#include <fstream>

#include "core/errors.h"
#include "metrics/npz.h"
#include "metrics/stats.h"
#include "tests/metrics/helpers.h"

using namespace hamgan;

TEST(Npz, ReadsNumpyStoredAndDeflatedAndNumpyReadsOurs) {
  auto dir = test::temp_dir("npz");
  RUN_REFERENCE("npz_roundtrip.py", "make " + dir);
  for (const char* name : {"numpy_stored", "numpy_deflated"}) {
    auto a = read_npz(dir + "/" + name + ".npz");
    ASSERT_EQ(a.size(), 7u) << name;
    // Known values written by the script, checked independently of numpy.
    auto sigma = a["sigma"];
    ASSERT_EQ(sigma.scalar_type(), torch::kFloat64);
    ASSERT_EQ(sigma.sizes(), (std::vector<int64_t>{3, 4}));
    for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(sigma.view(-1)[i].item<double>(), i * 0.5 - 1.0);
    EXPECT_EQ(a["mu32"].scalar_type(), torch::kFloat32);
    EXPECT_TRUE(torch::equal(a["labels"], torch::arange(-3, 3, torch::kInt64)));
    EXPECT_TRUE(torch::equal(a["img"], torch::arange(24, torch::kInt64).to(torch::kUInt8).view({2, 3, 4})));
    // Fortran order comes back in logical (row-major) order.
    EXPECT_TRUE(torch::equal(a["fortran"], torch::arange(6, torch::kFloat64).view({2, 3})));
    EXPECT_EQ(a["scalar"].dim(), 0);
    EXPECT_EQ(a["scalar"].item<int64_t>(), 5);
    if (std::string(name) == "numpy_stored") {
      write_npz(dir + "/hamgan_stored.npz", a, false);
      write_npz(dir + "/hamgan_deflated.npz", a, true);
    }
  }
  RUN_REFERENCE("npz_roundtrip.py", "verify " + dir);
}

TEST(Npz, CorruptOrMissingFileIsDataError) {
  auto dir = test::temp_dir("npz_bad");
  EXPECT_THROW(read_npz(dir + "/missing.npz"), DataError);
  { std::ofstream(dir + "/junk.npz") << "not a zip"; }
  EXPECT_THROW(read_npz(dir + "/junk.npz"), DataError);
  auto big_endian = format_npy(torch::ones({2}, torch::kFloat64));
  big_endian.replace(big_endian.find("<f8"), 3, ">f8");
  EXPECT_THROW(parse_npy(big_endian, "x"), DataError);
  EXPECT_NO_THROW(parse_npy(format_npy(torch::ones({2}, torch::kFloat64)), "x"));
  write_npz(dir + "/other.npz", {{"feats", torch::zeros({2, 2})}}, true);
  EXPECT_THROW(load_stats(dir + "/other.npz"), DataError);
}

TEST(Stats, StreamingMatchesNumpyCov) {
  auto dir = test::temp_dir("stats");
  torch::manual_seed(3);
  // Features far from zero with correlated dims: the case one-pass sums get wrong in float32.
  auto x = (torch::randn({1037, 24}, torch::kFloat64).matmul(torch::randn({24, 24}, torch::kFloat64)) + 50.0)
               .to(torch::kFloat32);
  RunningStats rs;
  for (int64_t i = 0; i < x.size(0); i += 100) rs.add(x.slice(0, i, i + 100));
  EXPECT_EQ(rs.count(), 1037);
  write_npz(dir + "/features.npz", {{"x", x}}, false);
  save_stats(dir + "/stats.npz", rs.finish(), true);
  RUN_REFERENCE("stats_reference.py", dir);
  auto back = load_stats(dir + "/stats.npz");
  EXPECT_EQ(back.n, 1037);
  EXPECT_TRUE(torch::equal(back.mu, rs.finish().mu));
}

TEST(Stats, NeedsTwoSamples) {
  RunningStats rs;
  rs.add(torch::ones({1, 4}));
  EXPECT_THROW(rs.finish(), DataError);
}
