#pragma once
// The Hamburger's option enums and their names, shared by the solver
// (ham_decomposition.h) and the block (ham_block.h).
#include <string>

namespace hamgan {

enum class HamType { kNMF, kVQ, kCD };
enum class HamGradient { kOneStep, kBPTT };
enum class HamInit { kRandom, kOnline };

// "nmf" -> kNMF, ...; bad values throw ConfigError listing the accepted ones.
HamType parse_ham_type(const std::string& s);
HamGradient parse_ham_gradient(const std::string& s);
HamInit parse_ham_init(const std::string& s);
std::string to_string(HamType t);
std::string to_string(HamGradient g);
std::string to_string(HamInit i);

}  // namespace hamgan
