// The PyTorch reference's op counts (bench/python/hamgan_torch_profile.py, traffic_counter.py) copy
// three name lists of the C++ counter: the ops that do no work, the matrix products left out of the
// bytes, and the gathers. The copies are read from the Python modules themselves and held equal here.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/op_counter.h"
#include "core/op_traffic.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

std::string sorted_lines(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += n + "\n";
  return text;
}

std::string sorted_lines(const std::vector<std::string>& names) {
  return sorted_lines(std::set<std::string>(names.begin(), names.end()));
}

TEST(OpTrafficMirror, ThePythonCountersNameTheSameOps) {
  const std::string bench = std::string(HAMGAN_SOURCE_DIR) + "/bench/python";
  std::string out;
  const int status = test::run_command(
      "cd " + bench + " && " HAMGAN_PYTHON " -c \"import sys, traffic_counter as t, hamgan_torch_profile as p; "
      "[print('\\n'.join(sorted(s)) + '\\n--') for s in (p.METADATA_OPS, t.PRODUCTS, t.GATHERS)]\"",
      &out);
  if (status != 0 && out.find("No module named 'torch'") != std::string::npos) REFERENCE_MISSING(out);
  ASSERT_EQ(status, 0) << out;
  const std::string expected = sorted_lines(OpCounter::metadata_op_names()) + "--\n" +
                               sorted_lines(matrix_product_op_names()) + "--\n" + sorted_lines(gather_op_names()) +
                               "--\n";
  EXPECT_EQ(out, expected);
}

}  // namespace
}  // namespace hamgan
