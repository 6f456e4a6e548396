// Field specs, their checks, and the one phrasing of a bad value (see config_fields.h).
#include "core/config_fields.h"

#include <charconv>
#include <cmath>
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

// Decimal digits with an optional sign, as canonical text ("+010" -> "10", "-0" -> "0").
bool integer_text(const std::string& s, std::string& canonical) {
  const size_t from = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (s.size() == from || s.find_first_not_of("0123456789", from) != std::string::npos) return false;
  const size_t first = s.find_first_not_of('0', from);
  const std::string digits = first == std::string::npos ? "0" : s.substr(first);
  canonical = (s[0] == '-' && digits != "0" ? "-" : "") + digits;
  return true;
}

// Whether canonical integer text fits in int64 or (non-negative) uint64.
bool fits_64_bits(const std::string& s) {
  const char* end = s.data() + s.size();
  int64_t i;
  uint64_t u;
  if (std::from_chars(s.data(), end, i).ec == std::errc()) return true;
  return s[0] != '-' && std::from_chars(s.data(), end, u).ec == std::errc();
}

// A finite decimal number (no hex, inf or nan).
bool parse_number(const std::string& s, double& v) {
  if (s.empty() || s.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// A check on the value as a number; for any value that is not a number it returns its requirement.
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

// A numeric field's bound as words for its type ("an integer >= 1"); a bound of ">= 0" makes a whole number.
std::string number_noun(const FieldSpec& spec) {
  const std::string requirement = spec.check ? spec.check("") : "";
  const std::string bound = requirement.rfind("must be ", 0) == 0 ? requirement.substr(8) : "";
  const bool numeric_bound = !bound.empty() && (bound[0] == '>' || bound[0] == '<' || bound.rfind("in [", 0) == 0);
  if (spec.type == FieldType::kFloat) return numeric_bound ? "a number " + bound : "a number";
  if (!numeric_bound || bound == ">= 0") return "a whole number";
  return "an integer " + bound;
}

// The problem with the value's type ("" when it is one; `value` made canonical).
std::string type_problem(const FieldSpec& spec, std::string& value) {
  const std::string given = value;
  const std::string example = spec.default_value.empty() ? "" : ", like " + spec.default_value + " (the default)";
  switch (spec.type) {
    case FieldType::kInt: {
      std::string canonical;
      if (!integer_text(trim(value), canonical))
        return "'" + given + "' is not an integer; it must be " + number_noun(spec) + example;
      if (!fits_64_bits(canonical)) {
        const std::string requirement = spec.check ? spec.check("") : "";
        return given + " is out of range; it " +
               (requirement.empty() ? "must be an integer that fits in 64 bits" : requirement);
      }
      value = canonical;
      return "";
    }
    case FieldType::kFloat: {
      double d = 0;
      if (!parse_number(trim(value), d)) return "'" + given + "' is not a finite number; it must be " + number_noun(spec) + example;
      value = format_value(d);
      return "";
    }
    case FieldType::kBool: {
      const std::string v = trim(value);
      if (v == "true" || v == "1" || v == "yes" || v == "on") value = "true";
      else if (v == "false" || v == "0" || v == "no" || v == "off") value = "false";
      else return "'" + given + "' is not a boolean; it must be true or false" + (spec.flag ? " (or leave out the value)" : "");
      return "";
    }
    case FieldType::kChoice:
      for (const auto& c : spec.choices)
        if (c == value) return "";
      return "'" + given + "' is not one of the choices; it must be one of " + join(spec.choices);
    case FieldType::kList: {
      const auto items = split_list(value);
      for (size_t i = 0; i < items.size() && !spec.choices.empty(); ++i) {
        bool known = false;
        for (const auto& c : spec.choices) known |= c == items[i];
        if (!known) return "lists names from " + join(spec.choices) + "; '" + items[i] + "' is not one of them";
        for (size_t j = 0; j < i; ++j)
          if (items[j] == items[i]) return "names '" + items[i] + "' twice";
      }
      value = join_list(items);
      return "";
    }
    case FieldType::kString: return "";
  }
  return "";
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
FieldSpec flag_field(std::string key, std::string help, std::string negation) {
  auto s = spec(std::move(key), FieldType::kBool, std::move(help), {});
  s.flag = true;
  s.negation = std::move(negation);
  return s;
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
FieldSpec required(FieldSpec spec) {
  spec.required = true;
  return spec;
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
FieldCheck between(double lo, double hi) {
  return numeric([lo, hi](double v) { return v >= lo && v <= hi; },
                 "must be in [" + number_text(lo) + ", " + number_text(hi) + "]");
}
FieldCheck one_of(std::vector<int64_t> values) {
  std::string list;
  for (auto v : values) list += (list.empty() ? "" : ", ") + std::to_string(v);
  return [values, list](const std::string& value) {
    int64_t v = 0;
    const char* end = value.data() + value.size();
    const auto r = std::from_chars(value.data(), end, v);
    if (!value.empty() && r.ec == std::errc() && r.ptr == end)
      for (auto x : values)
        if (x == v) return std::string();
    return "must be one of " + list;
  };
}
FieldCheck not_empty() {
  return [](const std::string& value) { return value.empty() ? std::string("must not be empty") : std::string(); };
}

std::string field_problem(const FieldSpec& spec, std::string& value) {
  if (std::string problem = type_problem(spec, value); !problem.empty()) return problem;
  const std::string requirement = spec.check ? spec.check(value) : std::string();
  if (requirement.empty()) return "";
  if (requirement.rfind("must", 0) != 0) return requirement;  // the check phrased the whole problem
  if (value.empty()) return "the value is empty; it " + requirement;
  const bool numeric = spec.type == FieldType::kInt || spec.type == FieldType::kFloat;
  const bool listed = requirement.rfind("must be one of", 0) == 0;
  return (numeric ? value : "'" + value + "'") + (listed || !numeric ? " is not allowed" : " is out of range") +
         "; it " + requirement;
}

void check_field(const std::string& section, const FieldSpec& spec, std::string& value) {
  // Key first: "train: batch_size must be >= 1, got '0'"; a value of the wrong type as field_problem says it.
  std::string problem = type_problem(spec, value);
  if (problem.empty() && spec.check) {
    const std::string requirement = spec.check(value);
    const bool whole = !requirement.empty() && requirement.rfind("must", 0) != 0;
    problem = requirement.empty() || whole ? requirement : requirement + ", got '" + value + "'";
  }
  if (!problem.empty()) throw ConfigError(section + ": " + spec.key + " " + problem);
}

void throw_unknown_field(const std::string& section, const std::string& key) {
  throw ConfigError(section + ": unknown key '" + key + "'");
}

}  // namespace hamgan
