#pragma once
// Field values as canonical text and back (core/config_fields.h).
#include <cstdint>
#include <string>
#include <vector>

namespace hamgan {

// Canonical text of a typed value and back (the value must already be canonical or checked).
std::string format_value(int64_t v);
std::string format_value(uint64_t v);
std::string format_value(double v);  // shortest decimal that reads back exactly, always with '.' or 'e'
std::string format_value(bool v);
std::string format_value(const std::string& v);
std::string format_value(const std::vector<std::string>& v);  // comma-joined
void parse_value(const std::string& s, int64_t& v);
void parse_value(const std::string& s, uint64_t& v);
void parse_value(const std::string& s, double& v);
void parse_value(const std::string& s, bool& v);
void parse_value(const std::string& s, std::string& v);
void parse_value(const std::string& s, std::vector<std::string>& v);

// The items of a list value's canonical text ("" -> none), and back.
std::vector<std::string> split_list(const std::string& text);
std::string join_list(const std::vector<std::string>& items);

}  // namespace hamgan
