// The Python package's own checks against the binary and independent references:
// every block's parameter count against `hamgan model-info`, save/load round
// trips and one-line loader errors (hamgan_package_check.py); YLG against a
// per-query loop written from docs/modules.md and External Attention against
// its reference formulation, in eval and training mode (ylg_ea_check.py); `python -m hamgan.sample`'s
// npz read by numpy as the evaluators read it (hamgan_sample_check.py); the hamgan.blocks example of
// docs/interop.md run as written (blocks_example_check.py).
#include <gtest/gtest.h>

#include <string>

#include "tests/common/python_reference.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

TEST(PythonPackage, EveryBlockCountsAsTheBinaryAndRoundTrips) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  RUN_REFERENCE("hamgan_package_check.py", test::hamgan_bin());
}

TEST(PythonPackage, YlgAndExternalAttentionEqualTheirReferences) {
  if (!test::hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set (run through ctest)";
  RUN_REFERENCE("ylg_ea_check.py", test::hamgan_bin());
}

TEST(PythonPackage, SampleWritesTheNpzTheEvaluatorsRead) {
  RUN_REFERENCE("hamgan_sample_check.py", test::scratch_dir("interop", "hamgan_sample_check"));
}

TEST(PythonPackage, TheBlocksExampleInTheDocsTrains) { RUN_REFERENCE("blocks_example_check.py", ""); }

}  // namespace
}  // namespace hamgan
