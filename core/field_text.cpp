// Field values as canonical text (see field_text.h).
#include "core/field_text.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <sstream>


namespace hamgan {
namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

template <class I>
void parse_integer(const std::string& s, I& v) {
  std::from_chars(s.data(), s.data() + s.size(), v);
}

}  // namespace

std::string format_value(int64_t v) { return std::to_string(v); }
std::string format_value(uint64_t v) { return std::to_string(v); }
std::string format_value(double v) {
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  // TOML reads "1" as an integer; keep floats floats.
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}
std::string format_value(bool v) { return v ? "true" : "false"; }
std::string format_value(const std::string& v) { return v; }
std::string format_value(const std::vector<std::string>& v) { return join_list(v); }

void parse_value(const std::string& s, int64_t& v) { parse_integer(s, v); }
void parse_value(const std::string& s, uint64_t& v) { parse_integer(s, v); }
void parse_value(const std::string& s, double& v) { v = std::strtod(s.c_str(), nullptr); }
void parse_value(const std::string& s, bool& v) { v = s == "true"; }
void parse_value(const std::string& s, std::string& v) { v = s; }
void parse_value(const std::string& s, std::vector<std::string>& v) { v = split_list(s); }

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ','))
    if (!trim(item).empty()) items.push_back(trim(item));
  return items;
}

std::string join_list(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& x : items) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace hamgan
