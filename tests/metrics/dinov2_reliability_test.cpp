// --features dinov2:FILE with a TorchScript file that is no DINOv2: one whose
// features are 200,000-d, or NaN at once or only on real images. Each is named
// as the DINOv2 file's fault, before the statistics are blamed.
#include <gtest/gtest.h>
#include <torch/script.h>

#include <string>

#include "core/errors.h"
#include "metrics/dinov2_features.h"
#include "tests/metrics/dinov2_test_util.h"
#include "tests/metrics/helpers.h"

namespace hamgan {
namespace {

// A TorchScript module whose forward is `body` (of x, the (N, 3, 224, 224) images), saved as NAME.pt.
std::string scripted(const std::string& dir, const std::string& name, const std::string& body) {
  torch::jit::Module m("FakeDinov2");
  m.define("def forward(self, x):\n    return " + body + "\n");
  const std::string path = dir + "/" + name + ".pt";
  m.save(path);
  return path;
}

// Before: all three loaded; a 200,000-d module asked for a 320 GB covariance, and NaN features ended in
// "statistics contain NaN or infinity (diverged generator or corrupt stats file)", naming neither.
TEST(FidReliability, ADinov2FileGivingNanOrAbsurdlyWideFeaturesIsNamed) {
  const std::string dir = test::temp_dir("dinov2_reliability");
  const std::string wide = scripted(dir, "wide", "torch.zeros([x.size(0), 200000])");
  std::string msg = test::dinov2_load_error(wide);
  EXPECT_NE(msg.find(wide + ": gives 200000-d features, more than the 16384 a DINOv2 embedding has"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("convert_dinov2.py"), std::string::npos) << msg;

  const std::string nan = scripted(dir, "nan", "torch.full([x.size(0), 8], float('nan'))");
  msg = test::dinov2_load_error(nan);
  EXPECT_NE(msg.find(nan + ": gives NaN or Inf features for a (1, 3, 224, 224) image"), std::string::npos) << msg;

  // Finite on the all-zero probe, NaN on a dark image once normalised (negative means).
  const std::string later = scripted(dir, "later", "torch.sqrt(x.mean(dim=[2, 3]))");
  ASSERT_EQ(test::dinov2_load_error(later), "");
  auto extractor = make_dinov2_extractor(later, DinoResize::torch_bicubic, torch::kCPU);
  try {
    extractor->extract(torch::zeros({2, 3, 32, 32}, torch::kUInt8));
    FAIL() << "NaN features must be refused";
  } catch (const DataError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find(later + ": the DINOv2 module gave NaN or Inf features for a batch of 2 images"),
            std::string::npos)
      << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

}  // namespace
}  // namespace hamgan
