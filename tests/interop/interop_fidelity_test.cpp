// torch-fidelity scores an exported generator as HamGAN scores its checkpoint: the same random Inception
// weights in both tools, the same z and labels (recorded from torch-fidelity's own sampling loop and
// given to `hamgan fid --latents`), a generator without random draws inside (sa), so both score the
// same images. torch-fidelity runs as its command line on the ONNX export.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <regex>

#include "tests/common/python_reference.h"
#include "tests/interop/interop_model.h"

namespace hamgan {
namespace {

TEST(InteropFidelity, TorchFidelityOnTheOnnxExportAgreesWithHamganFid) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN unset (run through ctest)";
  const std::string dir = test::scratch_dir("interop", "fidelity");
  test::write_interop_checkpoint(dir + "/ck.pt", 32, test::every_block()[1]);  // sa: deterministic
  int rc = 0;
  std::string out =
      test::run_hamgan("export " + dir + "/ck.pt --out " + dir + "/G.safetensors --standing_stats 0", &rc);
  ASSERT_EQ(rc, 0) << out;
  std::string weights;
  CACHED_REFERENCE("inception_reference.py", "inception", weights);
  // 40 samples in batches of 16 (the last one short), torch-fidelity's --rng-seed 3.
  RUN_REFERENCE("interop_fidelity.py", dir + " " + weights + "/weights.pth 40 16 3");
  const std::string theirs = test::file_contents(dir + "/fidelity.txt");
  out = test::run_hamgan("fid " + dir + "/ck.pt " + dir + "/real --latents " + dir + "/latents.npz --inception " + dir +
                             "/inception.pth --size 32 --is --is_splits 2 --batch 16 --standing_stats 0 --device cpu",
                         &rc);
  ASSERT_EQ(rc, 0) << out;
  const double fid = test::number_after(out, "FID: "), fid_ref = test::number_after(theirs, "fid ");
  const double is = test::number_after(out, "IS A: "), is_ref = test::number_after(theirs, "is_mean ");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("IS A: [-+0-9.eE]+ ± ([-+0-9.eE]+)"))) << out;
  const double is_std = std::stod(m[1].str()), is_std_ref = test::number_after(theirs, "is_std ");
  RecordProperty("fid_hamgan", std::to_string(fid));
  RecordProperty("fid_torch_fidelity", std::to_string(fid_ref));
  RecordProperty("is_hamgan", std::to_string(is));
  RecordProperty("is_torch_fidelity", std::to_string(is_ref));
  std::printf("FID hamgan %.9g torch-fidelity %.9g (rel %.3g); IS %.9g ± %.6g vs %.9g ± %.6g (rel %.3g)\n", fid,
              fid_ref, std::fabs(fid - fid_ref) / fid_ref, is, is_std, is_ref, is_std_ref,
              std::fabs(is - is_ref) / is_ref);
  // A real distance and an IS away from 1 (the planted fc spreads the images over the classes).
  EXPECT_GT(fid_ref, 1.0) << theirs;
  EXPECT_GT(is_ref, 1.2) << theirs;
  EXPECT_LE(std::fabs(fid - fid_ref), 1e-3 * fid_ref) << out << theirs;
  EXPECT_LE(std::fabs(is - is_ref), 1e-3 * is_ref) << out << theirs;
  // The spread of two split scores: an absolute bound relative to the mean, as it may be near 0.
  EXPECT_LE(std::fabs(is_std - is_std_ref), 1e-3 * is_ref) << out << theirs;
}

}  // namespace
}  // namespace hamgan
