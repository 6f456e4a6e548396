#pragma once
// Helpers shared by the report tests (metrics log, plot, TensorBoard).
#include <string>

#include "tests/common/test_util.h"

namespace hamgan::test {

inline std::string temp_dir(const std::string& name) { return scratch_dir("report", name); }

}  // namespace hamgan::test
