#pragma once
// Small string tests that several rooms need (file suffixes, tensor-name tails).
#include <string>

namespace hamgan {

inline bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace hamgan
