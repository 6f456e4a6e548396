#pragma once
// Shared helpers for the metrics tests: a fresh temporary directory, and the
// Python reference scripts (tests/common/python_reference.h).
#include <string>

#include "tests/common/python_reference.h"
#include "tests/common/test_util.h"

namespace hamgan::test {

inline std::string temp_dir(const std::string& name) { return scratch_dir("metrics", name); }

}  // namespace hamgan::test
