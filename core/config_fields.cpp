// Field tables: value checks, canonical text and flat TOML lines (see config_fields.h).
#include "core/config_fields.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/errors.h"

namespace hamgan {
namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

template <class I>
bool parse_integer(const std::string& s, I& v) {
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, v);
  return !s.empty() && r.ec == std::errc() && r.ptr == end;
}

bool parse_number(const std::string& s, double& v) {
  if (s.empty() || s.find_first_of(" \t") != std::string::npos) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// A check on the value as a number.
FieldCheck numeric(std::function<bool(double)> ok, std::string requirement) {
  return [ok = std::move(ok), requirement = std::move(requirement)](const std::string& value) {
    double v = 0;
    return parse_number(value, v) && ok(v) ? std::string() : requirement;
  };
}

FieldSpec spec(std::string key, FieldType type, std::string help, FieldCheck check) {
  FieldSpec s;
  s.key = std::move(key);
  s.type = type;
  s.help = std::move(help);
  s.check = std::move(check);
  return s;
}

}  // namespace

FieldSpec int_field(std::string key, std::string help, FieldCheck check) {
  return spec(std::move(key), FieldType::kInt, std::move(help), std::move(check));
}
FieldSpec float_field(std::string key, std::string help, FieldCheck check) {
  return spec(std::move(key), FieldType::kFloat, std::move(help), std::move(check));
}
FieldSpec bool_field(std::string key, std::string help) {
  return spec(std::move(key), FieldType::kBool, std::move(help), {});
}
FieldSpec string_field(std::string key, std::string help, FieldCheck check) {
  return spec(std::move(key), FieldType::kString, std::move(help), std::move(check));
}
FieldSpec choice_field(std::string key, std::vector<std::string> choices, std::string help) {
  auto s = spec(std::move(key), FieldType::kChoice, std::move(help), {});
  s.choices = std::move(choices);
  return s;
}

FieldSpec list_field(std::string key, std::vector<std::string> choices, std::string help) {
  auto s = spec(std::move(key), FieldType::kList, std::move(help), {});
  s.choices = std::move(choices);
  return s;
}

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

FieldCheck at_least(double lo) {
  return numeric([lo](double v) { return v >= lo; }, "must be >= " + number_text(lo));
}
FieldCheck above(double lo) {
  return numeric([lo](double v) { return v > lo; }, "must be > " + number_text(lo));
}
FieldCheck in_range(double lo, double hi) {
  return numeric([lo, hi](double v) { return v >= lo && v < hi; },
                 "must be in [" + number_text(lo) + ", " + number_text(hi) + ")");
}
FieldCheck one_of(std::vector<int64_t> values) {
  std::string list;
  for (auto v : values) list += (list.empty() ? "" : ", ") + std::to_string(v);
  return [values, list](const std::string& value) {
    int64_t v = 0;
    if (parse_integer(value, v))
      for (auto x : values)
        if (x == v) return std::string();
    return "must be one of " + list;
  };
}
FieldCheck not_empty() {
  return [](const std::string& value) { return value.empty() ? std::string("must not be empty") : std::string(); };
}

std::string field_problem(const FieldSpec& spec, std::string& value) {
  const std::string got = ", got '" + value + "'";
  switch (spec.type) {
    case FieldType::kInt: {
      int64_t i = 0;
      uint64_t u = 0;
      if (parse_integer(trim(value), i)) value = format_value(i);
      else if (parse_integer(trim(value), u)) value = format_value(u);
      else return "must be an integer" + got;
      break;
    }
    case FieldType::kFloat: {
      double d = 0;
      if (!parse_number(trim(value), d)) return "must be a finite number" + got;
      value = format_value(d);
      break;
    }
    case FieldType::kBool: {
      const std::string v = trim(value);
      if (v == "true" || v == "1" || v == "yes" || v == "on") value = "true";
      else if (v == "false" || v == "0" || v == "no" || v == "off") value = "false";
      else return "must be true or false" + got;
      break;
    }
    case FieldType::kChoice: {
      bool known = false;
      for (const auto& c : spec.choices) known |= c == value;
      if (!known) return "must be one of " + join(spec.choices) + got;
      break;
    }
    case FieldType::kList: {
      const auto items = split_list(value);
      for (size_t i = 0; i < items.size(); ++i) {
        bool known = false;
        for (const auto& c : spec.choices) known |= c == items[i];
        if (!known) return "lists names from " + join(spec.choices) + "; '" + items[i] + "' is not one of them";
        for (size_t j = 0; j < i; ++j)
          if (items[j] == items[i]) return "names '" + items[i] + "' twice";
      }
      value = join_list(items);
      break;
    }
    case FieldType::kString: break;
  }
  if (spec.check) {
    const std::string problem = spec.check(value);
    if (!problem.empty()) return problem + ", got '" + value + "'";
  }
  return "";
}

void check_field(const std::string& section, const FieldSpec& spec, std::string& value) {
  const std::string problem = field_problem(spec, value);
  if (!problem.empty()) throw ConfigError(section + ": " + spec.key + " " + problem);
}

void throw_unknown_field(const std::string& section, const std::string& key) {
  throw ConfigError(section + ": unknown key '" + key + "'");
}

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

void parse_value(const std::string& s, int64_t& v) { parse_integer(s, v); }
void parse_value(const std::string& s, uint64_t& v) { parse_integer(s, v); }
void parse_value(const std::string& s, double& v) { v = std::strtod(s.c_str(), nullptr); }
void parse_value(const std::string& s, bool& v) { v = s == "true"; }
void parse_value(const std::string& s, std::string& v) { v = s; }
std::string format_value(const std::vector<std::string>& v) { return join_list(v); }
void parse_value(const std::string& s, std::vector<std::string>& v) { v = split_list(s); }

std::string toml_line(const FieldSpec& spec, const std::string& value) {
  if (spec.type == FieldType::kList) {
    std::string items;
    for (const auto& x : split_list(value)) items += (items.empty() ? "\"" : ", \"") + x + "\"";
    return spec.key + " = [" + items + "]\n";
  }
  if (spec.type != FieldType::kString && spec.type != FieldType::kChoice) return spec.key + " = " + value + "\n";
  std::string quoted;
  for (char c : value) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return spec.key + " = \"" + quoted + "\"\n";
}

std::vector<std::pair<std::string, std::string>> read_toml_lines(const std::string& section, const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    const std::string key = eq == std::string::npos ? "" : trim(line.substr(0, eq));
    std::string rest = eq == std::string::npos ? "" : trim(line.substr(eq + 1)), value;
    bool ok = !key.empty() && !rest.empty();
    if (ok && rest[0] == '[') {
      // A one-line array of quoted names (list fields): the items joined by commas.
      std::vector<std::string> items;
      size_t i = 1;
      for (;;) {
        while (i < rest.size() && (rest[i] == ' ' || rest[i] == ',' || rest[i] == '\t')) ++i;
        if (i >= rest.size() || rest[i] == ']') break;
        const char q = rest[i];
        const size_t close = (q == '"' || q == '\'') ? rest.find(q, i + 1) : std::string::npos;
        if (close == std::string::npos) break;
        items.push_back(rest.substr(i + 1, close - i - 1));
        i = close + 1;
      }
      const std::string after = i < rest.size() ? trim(rest.substr(i + 1)) : "?";
      ok = after.empty() || after[0] == '#';
      value = join_list(items);
    } else if (ok && (rest[0] == '"' || rest[0] == '\'')) {
      // Quoted: basic strings unescape \" and \\, literal strings take the text as is.
      size_t i = 1;
      for (; i < rest.size() && rest[i] != rest[0]; ++i) {
        if (rest[0] == '"' && rest[i] == '\\' && i + 1 < rest.size()) ++i;
        value += rest[i];
      }
      const std::string after = i < rest.size() ? trim(rest.substr(i + 1)) : "?";
      ok = after.empty() || after[0] == '#';
    } else if (ok) {
      value = trim(rest.substr(0, rest.find('#')));
      ok = !value.empty();
    }
    if (!ok) throw ConfigError(section + ": malformed line '" + line + "' (expected key = value)");
    out.emplace_back(key, value);
  }
  return out;
}

}  // namespace hamgan
