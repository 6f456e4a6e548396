// Hostile use of the Python package's loaders and export tools (python_tools_hostile.py,
// python_weights_hostile.py): outputs that would overwrite the input or lose work, opsets the
// exporter cannot write, damaged or forged weight files. Each refusal is one line, exit status 1,
// with the input byte-identical and nothing written.
#include <gtest/gtest.h>

#include <string>

#include "tests/common/python_reference.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

TEST(PythonTools, OutputsAreCheckedBeforeAnyWorkAndReplacedOnlyWhenComplete) {
  RUN_REFERENCE("python_tools_hostile.py", "outputs");
}

TEST(PythonTools, AnOpsetTheExporterCannotWriteIsRefusedUpFront) {
  RUN_REFERENCE("python_tools_hostile.py", "opset");
}

TEST(PythonTools, DamagedOrForgedWeightsAreRefusedNamingTheTensorBeforeAllocating) {
  RUN_REFERENCE("python_weights_hostile.py", "");
}

}  // namespace
}  // namespace hamgan
