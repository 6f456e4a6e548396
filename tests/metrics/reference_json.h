#pragma once
// Reads the JSON a Python reference script wrote (tests/python/*_reference.py).
#include <nlohmann/json.hpp>

#include <string>

#include "tests/metrics/helpers.h"

namespace hamgan::test {

inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(file_contents(path)); }

}  // namespace hamgan::test
