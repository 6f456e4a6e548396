#pragma once
// The Hamburger's option enums and their name tables, shared by the solver
// (ham_decomposition.h), the block (ham_block.h) and its option table (ham_options.h).
#include <string>

#include "core/enum_names.h"

namespace hamgan {

enum class HamType { kNMF, kVQ, kCD };
enum class HamGradient { kOneStep, kBPTT };
enum class HamInit { kRandom, kOnline };

// "nmf" <-> kNMF, ...; the option keys ham_type, ham_gradient, ham_init take these names.
const EnumNames<HamType>& ham_type_names();
const EnumNames<HamGradient>& ham_gradient_names();
const EnumNames<HamInit>& ham_init_names();

// The tables' parse and name; bad values throw ConfigError listing the accepted ones.
HamType parse_ham_type(const std::string& s);
HamGradient parse_ham_gradient(const std::string& s);
HamInit parse_ham_init(const std::string& s);
std::string to_string(HamType t);
std::string to_string(HamGradient g);
std::string to_string(HamInit i);

}  // namespace hamgan
